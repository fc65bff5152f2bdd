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

  /** The last secret's key: a server, or a JVM's clients, hash the same secret every time. */
  private static volatile Object[] lastKey = {null, null};

  private static byte[] key(String secret) throws GeneralSecurityException {
    Object[] last = lastKey;
    if (secret.equals(last[0])) {
      return (byte[]) last[1];
    }
    byte[] key =
        MessageDigest.getInstance("SHA-256")
            .digest(("ddp4j-store-secret:" + secret).getBytes(StandardCharsets.UTF_8));
    lastKey = new Object[] {secret, key};
    return key;
  }

  private static byte[] mac(
      String secret, byte[] role, byte[] serverNonce, byte[] clientNonce, long clientId) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key(secret), "HmacSHA256"));
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
