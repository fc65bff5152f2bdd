package dev.ddp4j.collectives.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The store's mutual challenge-response. The server sends a random nonce Ns; the client answers
 * with its own nonce Nc and HMAC-SHA256(key, "client" || Ns || Nc || clientId); the server accepts
 * it and proves itself in turn with HMAC-SHA256(key, "server" || Ns || Nc || clientId), which the
 * client checks before it sends a single request. key = SHA-256 of the job secret. Only MACs cross
 * the wire, fresh nonces on both sides make a recorded answer useless, and a process that took the
 * store's port without the secret cannot produce the server's proof. An empty secret is allowed
 * (then anyone who reaches the port gets in, and anyone can pose as the store); the launcher always
 * sets one.
 */
final class StoreAuth {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] CLIENT = "client".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SERVER = "server".getBytes(StandardCharsets.US_ASCII);

  private StoreAuth() {}

  static byte[] nonce() {
    byte[] n = new byte[StoreProtocolDescriptor.NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /** The client's proof. */
  static byte[] clientProof(String secret, byte[] serverNonce, byte[] clientNonce, long clientId) {
    return mac(secret, CLIENT, serverNonce, clientNonce, clientId);
  }

  /** The server's proof. */
  static byte[] serverProof(String secret, byte[] serverNonce, byte[] clientNonce, long clientId) {
    return mac(secret, SERVER, serverNonce, clientNonce, clientId);
  }

  /** Constant-time comparison of a received proof with the expected one. */
  static boolean matches(byte[] expected, byte[] received) {
    return MessageDigest.isEqual(expected, received);
  }

  /**
   * A keyed HMAC for the last secret used, cloned for each proof: {@code Mac.getInstance} walks the
   * provider list under a lock every time (about 60 us, and contended when thousands of clients
   * connect at once), a clone copies the keyed state (a microsecond). A server, or a JVM's clients,
   * use one secret, so one entry is enough.
   */
  private static volatile KeyedMac lastMac = new KeyedMac(null, null);

  private record KeyedMac(String secret, Mac prototype) {}

  /**
   * Initializes the JCA providers, the random source and the HMAC for {@code secret} now (the first
   * use costs 100-400 ms), so that a server starting before its clients does not spend that on the
   * first connection while the others queue.
   */
  static void warmUp(String secret) {
    nonce();
    clientProof(secret, nonce(), nonce(), 0);
  }

  private static Mac keyed(String secret) throws GeneralSecurityException {
    KeyedMac last = lastMac;
    if (!secret.equals(last.secret())) {
      byte[] key =
          MessageDigest.getInstance("SHA-256")
              .digest(("ddp4j-store-secret:" + secret).getBytes(StandardCharsets.UTF_8));
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      last = new KeyedMac(secret, mac);
      lastMac = last;
    }
    try {
      return (Mac) last.prototype().clone();
    } catch (CloneNotSupportedException e) {
      throw new GeneralSecurityException("HmacSHA256 of this JVM cannot be cloned", e);
    }
  }

  private static byte[] mac(
      String secret, byte[] role, byte[] serverNonce, byte[] clientNonce, long clientId) {
    try {
      Mac mac = keyed(secret);
      mac.update(role);
      mac.update(serverNonce);
      mac.update(clientNonce);
      mac.update(ByteBuffer.allocate(8).putLong(0, clientId));
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }
}
