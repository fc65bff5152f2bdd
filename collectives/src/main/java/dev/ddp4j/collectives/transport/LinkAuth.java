package dev.ddp4j.collectives.transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The job secret as the data sockets use it ({@link SocketFrameDescriptor}): both ends of a new
 * connection contribute a nonce, each proves the secret over both nonces and the two ranks, and the
 * frames that follow are sealed with a key derived from the same transcript, so a key is never
 * reused across connections. With an empty secret (no launcher) anyone can compute the proofs: the
 * checks then guard against mistakes, not against an attacker.
 */
public final class LinkAuth {

  static final int NONCE_BYTES = 32;
  static final int PROOF_BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] jobKey;

  private LinkAuth(byte[] jobKey) {
    this.jobKey = jobKey;
  }

  /** The links' key for {@code secret} (the store's secret, {@code DDP4J_STORE_SECRET}). */
  static LinkAuth fromSecret(String secret) {
    try {
      return new LinkAuth(
          MessageDigest.getInstance("SHA-256")
              .digest(("ddp4j-link-secret:" + secret).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
  }

  static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /** What the receiving rank (which accepted the connection) proves. */
  byte[] receiverProof(byte[] receiverNonce, byte[] senderNonce, int from, int to, boolean sealed) {
    return mac(jobKey, "link-receiver", receiverNonce, senderNonce, from, to, sealed);
  }

  /** What the sending rank (which dialed) proves. */
  byte[] senderProof(byte[] receiverNonce, byte[] senderNonce, int from, int to, boolean sealed) {
    return mac(jobKey, "link-sender", receiverNonce, senderNonce, from, to, sealed);
  }

  /** The key that seals the frames of this one connection. */
  FrameMac frameMac(byte[] receiverNonce, byte[] senderNonce, int from, int to) {
    return new FrameMac(mac(jobKey, "link-frames", receiverNonce, senderNonce, from, to, true));
  }

  static boolean matches(byte[] expected, byte[] received) {
    return MessageDigest.isEqual(expected, received);
  }

  static Mac hmac(byte[] key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** {@code sealed} is in every proof, so that no one in the middle can turn sealing off. */
  private static byte[] mac(
      byte[] key,
      String label,
      byte[] receiverNonce,
      byte[] senderNonce,
      int from,
      int to,
      boolean sealed) {
    Mac mac = hmac(key);
    mac.update(label.getBytes(StandardCharsets.US_ASCII));
    mac.update(receiverNonce);
    mac.update(senderNonce);
    mac.update(ByteBuffer.allocate(9).putInt(from).putInt(to).put((byte) (sealed ? 1 : 0)).array());
    return mac.doFinal();
  }

  @Override
  public String toString() {
    return "LinkAuth[key redacted]";
  }
}
