package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.Store;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Throws 10,000 random, truncated, oversized and malformed frames at a real server, before and
 * after authentication, then checks it still serves a correct client and holds no stray connection.
 */
class StoreServerFuzzTest {

  private static final String SECRET = "fuzz";
  private static final int MAX_FRAME_BYTES = 4096;

  @Test
  void randomAndTruncatedFramesShouldLeaveTheServerServingACorrectClient() {
    Random rnd = new Random(20261130L);
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET, MAX_FRAME_BYTES)) {
      try (Store before = client(server)) {
        before.set("kept", "v".getBytes(UTF_8));
      }
      int frames = 0;
      while (frames < 10_000) {
        try (RawStoreSocket raw = new RawStoreSocket(server.port())) {
          if (rnd.nextBoolean()) {
            raw.authenticate(SECRET, rnd.nextLong());
          } else {
            raw.readChallengeNonce();
          }
          // Keep sending on this connection until the server closes it or we give up on it.
          boolean open = true;
          for (int i = 0; i < 20 && open; i++, frames++) {
            open = raw.writeRaw(randomFrame(rnd));
          }
        }
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> server.connectionCount() == 0);
      try (Store after = client(server)) {
        assertThat(after.get("kept", Duration.ofSeconds(5))).isEqualTo("v".getBytes(UTF_8));
        after.set("new", "w".getBytes(UTF_8));
        assertThat(after.get("new", Duration.ofSeconds(5))).isEqualTo("w".getBytes(UTF_8));
        assertThat(after.add("count", 2)).isEqualTo(2);
      }
    }
  }

  @Test
  void anOversizedFrameShouldGetAnErrorReplyAndCloseOnlyThatConnection() {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET, MAX_FRAME_BYTES);
        Store bystander = client(server)) {
      try (RawStoreSocket raw = new RawStoreSocket(server.port())) {
        raw.authenticate(SECRET, 1L);
        raw.writeRaw(ByteBuffer.allocate(9).putInt(1 << 20).put((byte) 2).putInt(9).array());
        RawStoreSocket.Frame reply = raw.readFrame();
        assertThat(reply.code()).isEqualTo(StoreProtocolDescriptor.STATUS_ERROR);
        assertThat(new String(reply.body(), UTF_8)).contains("frame too long");
        assertThat(raw.isClosedByServer()).isTrue();
      }
      bystander.set("still", "fine".getBytes(UTF_8));
      assertThat(bystander.get("still", Duration.ofSeconds(5))).isEqualTo("fine".getBytes(UTF_8));
    }
  }

  @Test
  void aBodyWithALyingLengthShouldGetAnErrorReplyNamingTheProblem() {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET, MAX_FRAME_BYTES);
        RawStoreSocket raw = new RawStoreSocket(server.port())) {
      raw.authenticate(SECRET, 2L);
      raw.send(StoreProtocolDescriptor.OP_SET, 3, ByteBuffer.allocate(8).putInt(1000).array());
      RawStoreSocket.Frame reply = raw.readFrame();
      assertThat(reply.code()).isEqualTo(StoreProtocolDescriptor.STATUS_ERROR);
      assertThat(reply.id()).isEqualTo(3);
      assertThat(new String(reply.body(), UTF_8)).contains("field length 1000");
      assertThat(raw.isClosedByServer()).isTrue();
    }
  }

  private static Store client(StoreServer server) {
    return TcpStoreClient.connect("127.0.0.1", server.port(), SECRET, Duration.ofSeconds(20));
  }

  /** A frame that is random, truncated, oversized, or well-framed with a random body. */
  private static byte[] randomFrame(Random rnd) {
    switch (rnd.nextInt(4)) {
      case 0: // pure noise
        {
          byte[] b = new byte[rnd.nextInt(64)];
          rnd.nextBytes(b);
          return b;
        }
      case 1: // a header promising more than follows
        {
          int claimed = 5 + rnd.nextInt(MAX_FRAME_BYTES);
          byte[] body = new byte[rnd.nextInt(Math.min(claimed, 64))];
          rnd.nextBytes(body);
          return ByteBuffer.allocate(4 + body.length).putInt(claimed).put(body).array();
        }
      case 2: // an oversized or negative length
        return ByteBuffer.allocate(9)
            .putInt(
                rnd.nextBoolean() ? MAX_FRAME_BYTES + rnd.nextInt(1 << 20) : -1 - rnd.nextInt(100))
            .put((byte) rnd.nextInt(16))
            .putInt(rnd.nextInt())
            .array();
      default: // right framing, a real or bogus op, random body
        {
          byte[] body = new byte[rnd.nextInt(48)];
          rnd.nextBytes(body);
          return ByteBuffer.allocate(9 + body.length)
              .putInt(5 + body.length)
              .put((byte) rnd.nextInt(14))
              .putInt(rnd.nextInt())
              .put(body)
              .array();
        }
    }
  }
}
