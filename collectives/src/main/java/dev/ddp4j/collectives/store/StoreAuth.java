package dev.ddp4j.collectives.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The store's challenge-response: the server sends a random nonce, the client answers
 * HMAC-SHA256(key, nonce || clientId) where key = SHA-256 of the job secret. Only the MAC crosses
 * the wire, and a fresh nonce per connection makes a recorded answer useless. An empty secret is
 * allowed (the store is then open to whoever reaches its port); the launcher always sets one.
 */
final class StoreAuth {

  private static final SecureRandom RANDOM = new SecureRandom();

  private StoreAuth() {}

  static byte[] nonce() {
    byte[] n = new byte[StoreProtocolDescriptor.NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  static byte[] mac(String secret, byte[] nonce, long clientId) {
    try {
      byte[] key =
          MessageDigest.getInstance("SHA-256")
              .digest(("ddp4j-store-secret:" + secret).getBytes(StandardCharsets.UTF_8));
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(nonce);
      mac.update(ByteBuffer.allocate(8).putLong(0, clientId));
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  static boolean verify(String secret, byte[] nonce, long clientId, byte[] answer) {
    return MessageDigest.isEqual(mac(secret, nonce, clientId), answer);
  }
}
