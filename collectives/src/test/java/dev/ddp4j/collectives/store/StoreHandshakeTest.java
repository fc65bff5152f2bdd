package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The handshake against clients and servers that do not play by it, over real loopback sockets:
 * idle and partial connections, oversized frames before authentication, floods of idle sockets, and
 * a process posing as the store.
 */
class StoreHandshakeTest {

  private static final String SECRET = "handshake";

  @Test
  void aConnectionThatNeverAuthenticatesShouldBeClosedAtTheHandshakeDeadline() {
    StoreServer.Limits limits = StoreServer.Limits.DEFAULT.withHandshakeTimeoutMs(500);
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET, limits);
        RawStoreSocket idle = new RawStoreSocket(server.port());
        RawStoreSocket partial = new RawStoreSocket(server.port())) {
      idle.readChallengeNonce();
      partial.readChallengeNonce();
      partial.writeRaw(new byte[] {0, 0, 0}); // three bytes of a length field, then silence
      idle.setReadTimeoutMs(5_000);
      partial.setReadTimeoutMs(5_000);
      long t0 = System.nanoTime();
      assertThat(idle.isClosedByServer()).isTrue();
      assertThat(partial.isClosedByServer()).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
      await().atMost(Duration.ofSeconds(5)).until(() -> server.unauthenticatedCount() == 0);
      try (Store ok = client(server)) {
        ok.set("k", "v".getBytes(UTF_8));
        assertThat(ok.get("k", Duration.ofSeconds(5))).isEqualTo("v".getBytes(UTF_8));
      }
    }
  }

  @Test
  void aLargeFrameBeforeAuthenticationShouldBeRefusedBeforeItsBodyArrives() {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET);
        RawStoreSocket raw = new RawStoreSocket(server.port())) {
      raw.readChallengeNonce();
      // 8 MiB is under the server's 16 MiB frame limit; before authentication only the handshake's
      // size may be buffered, so the refusal must come without the body ever being sent.
      raw.writeRaw(ByteBuffer.allocate(9).putInt(8 << 20).put((byte) 1).putInt(0).array());
      raw.setReadTimeoutMs(3_000);
      RawStoreSocket.Frame reply = raw.readFrame();
      assertThat(reply.code()).isEqualTo(StoreProtocolDescriptor.STATUS_ERROR);
      assertThat(new String(reply.body(), UTF_8))
          .contains("frame of 8388608 bytes exceeds 256 before authentication");
      assertThat(raw.isClosedByServer()).isTrue();
    }
  }

  @Test
  void aFloodOfIdleSocketsShouldNeitherGrowPastTheCapNorLockOutARealClient() throws Exception {
    int cap = 32;
    StoreServer.Limits limits = StoreServer.Limits.DEFAULT.withMaxUnauthenticated(cap);
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<Socket> flood = new ArrayList<>();
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET, limits);
        Store before = client(server)) {
      before.set("kept", "v".getBytes(UTF_8));
      System.setErr(new PrintStream(captured, true, UTF_8));
      try {
        for (int i = 0; i < 400; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2_000);
          flood.add(s);
        }
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> server.connectionCount() <= cap + 1 && server.unauthenticatedCount() == cap);
        // While the idle sockets are still open: the connected client and a new one are served.
        assertThat(before.get("kept", Duration.ofSeconds(5))).isEqualTo("v".getBytes(UTF_8));
        try (Store during = client(server)) {
          assertThat(during.add("during", 1)).isEqualTo(1);
        }
      } finally {
        for (Socket s : flood) {
          s.close();
        }
        System.setErr(stderr);
      }
      String log = captured.toString(UTF_8);
      assertThat(log).contains("32 connections are waiting to authenticate");
      assertThat(log.split("waiting to authenticate", -1)).hasSize(2); // said once, not per socket
      await().atMost(Duration.ofSeconds(10)).until(() -> server.unauthenticatedCount() == 0);
      try (Store after = client(server)) {
        assertThat(after.add("during", 1)).isEqualTo(2);
      }
    }
  }

  @Test
  void aClientShouldRefuseAProcessOnTheStorePortThatCannotProveTheSecret() throws Exception {
    try (ServerSocket rogue = new ServerSocket(0)) {
      CompletableFuture<byte[]> whatTheRogueGot = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                try (Socket s = rogue.accept()) {
                  s.setSoTimeout(10_000);
                  DataOutputStream out = new DataOutputStream(s.getOutputStream());
                  DataInputStream in = new DataInputStream(s.getInputStream());
                  RawStoreSocket.writeFrame(
                      out, StoreProtocolDescriptor.STATUS_CHALLENGE, 0, nonceBody());
                  byte[] auth = new byte[in.readInt()];
                  in.readFully(auth);
                  RawStoreSocket.writeFrame(
                      out, StoreProtocolDescriptor.STATUS_OK, 0, new byte[0]); // "welcome"
                  // Anything the client sends now would be a rendezvous key given to a stranger.
                  s.setSoTimeout(3_000);
                  byte[] next = new byte[64];
                  int n = in.read(next);
                  whatTheRogueGot.complete(n <= 0 ? new byte[0] : next);
                } catch (Exception e) {
                  whatTheRogueGot.complete(new byte[0]);
                }
              });
      t.start();
      assertThatThrownBy(
              () ->
                  TcpStoreClient.connect(
                          "127.0.0.1", rogue.getLocalPort(), SECRET, Duration.ofSeconds(5))
                      .set("ddp4j/secret-address", "10.0.0.1:1234".getBytes(UTF_8)))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("could not prove the job secret")
          .hasMessageContaining("port " + rogue.getLocalPort());
      assertThat(whatTheRogueGot.get(10, TimeUnit.SECONDS)).isEmpty();
      t.join(10_000);
    }
  }

  @Test
  void aClientShouldRefuseAHugeChallengeFromAProcessPosingAsTheStoreWithoutReadingIt()
      throws Exception {
    assertHugeReplyIsRefusedUnread(false);
  }

  @Test
  void aClientShouldRefuseAHugeAnswerToItsProofBeforeTheServerHasProvenTheSecret()
      throws Exception {
    assertHugeReplyIsRefusedUnread(true);
  }

  /**
   * A rogue on the store port announces a 1 GiB frame (as the challenge, or as the answer to the
   * client's proof) and streams junk: the client must give up at once, not retry, and not read the
   * body, so the rogue's writes fail long before 64 MiB.
   */
  private static void assertHugeReplyIsRefusedUnread(boolean afterValidChallenge) throws Exception {
    try (ServerSocket rogue = new ServerSocket(0)) {
      CompletableFuture<Long> bytesWritten = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                long written = 0;
                try (Socket s = rogue.accept()) {
                  s.setSoTimeout(10_000);
                  DataOutputStream out = new DataOutputStream(s.getOutputStream());
                  DataInputStream in = new DataInputStream(s.getInputStream());
                  byte code = StoreProtocolDescriptor.STATUS_CHALLENGE;
                  if (afterValidChallenge) {
                    RawStoreSocket.writeFrame(out, code, 0, nonceBody());
                    in.readFully(new byte[in.readInt()]);
                    code = StoreProtocolDescriptor.STATUS_OK;
                  }
                  out.writeInt(1 << 30);
                  out.writeByte(code);
                  out.writeInt(0);
                  byte[] junk = new byte[1 << 20];
                  while (written < (256L << 20)) {
                    out.write(junk);
                    written += junk.length;
                  }
                  bytesWritten.complete(written);
                } catch (Exception e) {
                  bytesWritten.complete(written); // the client closed the connection: good
                }
              });
      t.start();
      long t0 = System.nanoTime();
      assertThatThrownBy(
              () ->
                  TcpStoreClient.connect(
                      "127.0.0.1", rogue.getLocalPort(), SECRET, Duration.ofSeconds(20)))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("reply frame of " + (1 << 30) + " bytes")
          .hasMessageContaining("before proving the job secret");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
      assertThat(bytesWritten.get(20, TimeUnit.SECONDS)).isLessThan(64L << 20);
      t.join(10_000);
    }
  }

  @Test
  void theStoreShouldProveTheSecretToAClientThatKnowsIt() {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, SECRET);
        Store ok = client(server)) {
      ok.set("k", "v".getBytes(UTF_8));
    }
    // A store with another secret refuses the client; the client never trusts it either way.
    try (StoreServer other = StoreServer.start("127.0.0.1", 0, "other")) {
      assertThatThrownBy(
              () ->
                  TcpStoreClient.connect("127.0.0.1", other.port(), SECRET, Duration.ofSeconds(5)))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("authentication failed");
    }
  }

  private static byte[] nonceBody() {
    return ByteBuffer.allocate(4 + StoreProtocolDescriptor.NONCE_BYTES)
        .putInt(StoreProtocolDescriptor.VERSION)
        .put(StoreAuth.nonce())
        .array();
  }

  private static Store client(StoreServer server) {
    return TcpStoreClient.connect("127.0.0.1", server.port(), SECRET, Duration.ofSeconds(20));
  }
}
