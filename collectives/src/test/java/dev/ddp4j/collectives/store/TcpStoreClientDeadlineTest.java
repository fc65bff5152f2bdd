package dev.ddp4j.collectives.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Every call of the client has a deadline, whether it waits on the server (get, wait) or not (set,
 * add): against a store that proves the secret and then never answers, each fails at its budget
 * (plus the grace for the server's own timeout reply), naming what and how long.
 */
class TcpStoreClientDeadlineTest {

  private static final String SECRET = "deadline";

  @Test
  void callsToAStoreThatStopsAnsweringShouldFailAtTheirDeadlineNamingIt() throws Exception {
    try (ServerSocket silent = new ServerSocket(0)) {
      CountDownLatch finished = new CountDownLatch(1);
      Thread t = new Thread(() -> proveThenIgnore(silent, finished));
      t.setDaemon(true);
      t.start();
      try (Store s =
          TcpStoreClient.connect(
              "127.0.0.1", silent.getLocalPort(), SECRET, Duration.ofSeconds(1))) {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> s.set("k", new byte[0]))
            .isInstanceOf(DdpTimeoutException.class)
            .hasMessageContaining("set of key 'k' timed out after 1 s")
            .hasMessageContaining("did not answer");
        assertThatThrownBy(() -> s.add("n", 1))
            .isInstanceOf(DdpTimeoutException.class)
            .hasMessageContaining("add on key 'n' timed out after 1 s");
        assertThatThrownBy(() -> s.wait(List.of("w"), Duration.ofMillis(500)))
            .isInstanceOf(DdpTimeoutException.class)
            .hasMessageContaining("timed out after 0.500 s")
            .hasMessageContaining("waiting for keys [w]");
        // 1 + 1 + 0.5 s of budgets, each plus the 2 s grace for a server's timeout reply.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(12));
      }
      finished.countDown();
      t.join(5_000);
    }
  }

  /** Plays the store's side of the handshake correctly, then reads requests and answers none. */
  private static void proveThenIgnore(ServerSocket silent, CountDownLatch finished) {
    try (Socket s = silent.accept()) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] serverNonce = StoreAuth.nonce();
      RawStoreSocket.writeFrame(
          out,
          StoreProtocolDescriptor.STATUS_CHALLENGE,
          0,
          ByteBuffer.allocate(4 + serverNonce.length)
              .putInt(StoreProtocolDescriptor.VERSION)
              .put(serverNonce)
              .array());
      ByteBuffer auth = ByteBuffer.wrap(in.readNBytes(in.readInt()));
      auth.position(StoreProtocolDescriptor.HEADER_BYTES);
      long clientId = auth.getLong();
      byte[] clientNonce = new byte[auth.getInt()];
      auth.get(clientNonce);
      byte[] proof = StoreAuth.serverProof(SECRET, serverNonce, clientNonce, clientId);
      RawStoreSocket.writeFrame(
          out,
          StoreProtocolDescriptor.STATUS_OK,
          0,
          ByteBuffer.allocate(4 + proof.length).putInt(proof.length).put(proof).array());
      while (finished.getCount() > 0 && in.read() >= 0) {
        // swallow requests
      }
    } catch (Exception e) {
      // the client closed: the test is over
    }
  }
}
