package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.BYTE_BASE;
import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.DdpException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.collectives.store.TcpStoreClient;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two ranks on two "hosts" (one node each) joined by real loopback sockets, and what a process
 * without the job secret can do to them: claim a rank, pose as a rank's listener, or alter frames
 * on the way (a proxy in the middle).
 */
class SocketLinksAuthTest {

  private static final String SECRET = "links-secret";
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final Map<String, String> ENV =
      Map.of(
          "DDP4J_STORE_SECRET", SECRET,
          "DDP4J_SOCKET_IFNAME", "lo",
          "DDP4J_SOCKET_INTEGRITY", "1", // sealed frames, which the tampering test needs
          "DDP4J_SOCKET_LIVENESS_MS", "60000"); // no heartbeat in the first 12 s

  private StoreServer server;
  private Store store0;
  private Store store1;

  @BeforeEach
  void startStore() {
    server = StoreServer.start("127.0.0.1", 0, SECRET);
    store0 = TcpStoreClient.connect("127.0.0.1", server.port(), SECRET, TIMEOUT);
    store1 = TcpStoreClient.connect("127.0.0.1", server.port(), SECRET, TIMEOUT);
  }

  @AfterEach
  void stopStore() {
    store0.close();
    store1.close();
    server.close();
  }

  @Test
  void aForgedHelloShouldBeDroppedAndLoggedWhileTheRealPeerGetsThrough() throws Exception {
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, UTF_8));
    CompletableFuture<SocketLinks> rank0 = connectInBackground(store0, 0);
    try {
      String addr = new String(store1.get("t/sock/0", TIMEOUT), UTF_8);
      // The attack of the issue: HELLO as rank 1, then a FAILED frame with the attacker's text.
      try (Socket forged = dialRaw(addr)) {
        DataOutputStream out = new DataOutputStream(forged.getOutputStream());
        frame(out, SocketFrameDescriptor.HELLO, 1, 0, new byte[0]);
        frame(out, SocketFrameDescriptor.FAILED, 7, 0, "attacker says stop".getBytes(UTF_8));
        assertThat(closedByPeer(forged)).isTrue();
      }
      // The same with the handshake's OPEN first and a made-up proof.
      try (Socket guessed = dialRaw(addr)) {
        DataOutputStream out = new DataOutputStream(guessed.getOutputStream());
        frame(out, SocketFrameDescriptor.OPEN, 1, 1, 0, LinkAuth.nonce()); // meta 1: sealed
        frame(out, SocketFrameDescriptor.HELLO, 1, 0, new byte[LinkAuth.PROOF_BYTES]);
        assertThat(closedByPeer(guessed)).isTrue();
      }
      try (SocketLinks links1 = connect(store1, 1);
          SocketLinks links0 = rank0.get(30, TimeUnit.SECONDS)) {
        assertThat(links0.failure(1)).isNull();
        assertThat(links0.gone(1)).isNull();
        byte[] piece = "a gradient piece".getBytes(UTF_8);
        assertThat(send(links1, 0, piece)).isTrue();
        assertThat(receive(links0, 1)).isEqualTo(piece);
      }
    } finally {
      System.setErr(stderr);
    }
    String log = captured.toString(UTF_8);
    assertThat(log)
        .contains("rank 0: dropped a connection from /127.0.0.1:")
        .contains("a HELLO without the handshake's proof")
        .contains("claiming to be rank 1: it could not prove the job secret")
        .doesNotContain("attacker says stop");
  }

  @Test
  void aFrameAlteredOnTheWayShouldBeRefusedAndTheConnectionDroppedNamingThePeer() throws Exception {
    CompletableFuture<SocketLinks> rank0 = connectInBackground(store0, 0);
    String real = new String(store1.get("t/sock/0", TIMEOUT), UTF_8);
    // OPEN and HELLO are 60 bytes each; the first sealed frame follows: flip a payload byte.
    int flipAt = 60 + 60 + 4 + SocketFrameDescriptor.HEADER_BYTES + 100;
    try (TamperingProxy proxy = new TamperingProxy(real, flipAt)) {
      store1.set("t/sock/0", ("127.0.0.1:" + proxy.port()).getBytes(UTF_8));
      try (SocketLinks links1 = connect(store1, 1);
          SocketLinks links0 = rank0.get(30, TimeUnit.SECONDS)) {
        byte[] piece = new byte[1000];
        Arrays.fill(piece, (byte) 7);
        assertThat(send(links1, 0, piece)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> links0.gone(1) != null);
        assertThat(links0.gone(1))
            .contains("rank 1 at /127.0.0.1:")
            .contains("integrity tag does not match")
            .contains("dropped the connection");
        assertThat(links0.recvPort(1, 0).poll()).isFalse(); // the altered piece never arrived
        assertThat(proxy.flipped).isTrue();
      }
    }
  }

  @Test
  void aListenerThatCannotProveTheSecretShouldBeRefusedByTheRankDialingIt() throws Exception {
    try (ServerSocket rogue = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                try (Socket s = rogue.accept()) {
                  s.getInputStream().readNBytes(60); // the OPEN
                  byte[] payload = new byte[LinkAuth.NONCE_BYTES + LinkAuth.PROOF_BYTES];
                  frame(
                      new DataOutputStream(s.getOutputStream()),
                      SocketFrameDescriptor.CHALLENGE,
                      0,
                      0,
                      payload);
                  s.getInputStream().read(); // until the rank hangs up
                } catch (IOException e) {
                  // the rank hung up
                }
              });
      t.setDaemon(true);
      t.start();
      store0.set("t/sock/0", ("127.0.0.1:" + rogue.getLocalPort()).getBytes(UTF_8));
      assertThatThrownBy(() -> connect(store1, 1))
          .isInstanceOf(DdpException.class)
          .hasMessageContaining("rank 1 refused the process at 127.0.0.1:" + rogue.getLocalPort())
          .hasMessageContaining("could not prove the job secret");
    }
  }

  private CompletableFuture<SocketLinks> connectInBackground(Store store, int rank) {
    return CompletableFuture.supplyAsync(() -> connect(store, rank));
  }

  private static SocketLinks connect(Store store, int rank) {
    return SocketLinks.connect(
        new StoreExchange(store, rank, 2, TIMEOUT),
        "t/",
        new int[] {rank},
        TransportConfig.fromEnvironment(dev.ddp4j.spi.Settings.of(ENV)),
        TIMEOUT);
  }

  private static boolean send(SocketLinks links, int peer, byte[] piece) {
    PieceTag tag = new PieceTag().set(1, piece.length, 0);
    return links.sendPort(peer, 0).offer(piece, BYTE_BASE, piece.length, tag);
  }

  private static byte[] receive(SocketLinks links, int peer) {
    RecvPort port = links.recvPort(peer, 0);
    await().atMost(Duration.ofSeconds(10)).until(port::poll);
    byte[] got = new byte[port.lengthBytes()];
    UNSAFE.copyMemory(null, port.address(), got, BYTE_BASE, got.length);
    port.release();
    return got;
  }

  private static Socket dialRaw(String addr) throws IOException {
    int colon = addr.lastIndexOf(':');
    Socket s = new Socket();
    s.connect(
        new InetSocketAddress(
            addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1))));
    s.setSoTimeout(10_000);
    return s;
  }

  private static void frame(DataOutputStream out, int channel, long seq, long count, byte[] payload)
      throws IOException {
    frame(out, channel, 0, seq, count, payload);
  }

  private static void frame(
      DataOutputStream out, int channel, int meta, long seq, long count, byte[] payload)
      throws IOException {
    out.writeInt(SocketFrameDescriptor.HEADER_BYTES + payload.length);
    out.writeInt(channel);
    out.writeInt(meta);
    out.writeLong(seq);
    out.writeLong(count);
    out.write(payload);
    out.flush();
  }

  /** Reads what the peer sends (a challenge) until it closes: true, or a read times out. */
  private static boolean closedByPeer(Socket s) {
    try {
      while (s.getInputStream().read() >= 0) {
        // the receiver's challenge
      }
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /** Forwards one connection both ways, flipping one byte of the client-to-server direction. */
  private static final class TamperingProxy implements AutoCloseable {
    private final ServerSocket listener;
    volatile boolean flipped;

    TamperingProxy(String target, int flipAt) throws IOException {
      listener = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
      Thread t =
          new Thread(
              () -> {
                try (Socket in = listener.accept();
                    Socket out = dialRaw(target)) {
                  out.setSoTimeout(0);
                  in.setSoTimeout(0);
                  Thread back = pump(out.getInputStream(), in.getOutputStream(), -1);
                  pump(in.getInputStream(), out.getOutputStream(), flipAt).join();
                  back.join();
                } catch (IOException | InterruptedException e) {
                  // the test is over
                }
              });
      t.setDaemon(true);
      t.start();
    }

    private Thread pump(InputStream from, OutputStream to, int flipAt) {
      Thread t =
          new Thread(
              () -> {
                byte[] buf = new byte[8192];
                long seen = 0;
                try {
                  for (int n; (n = from.read(buf)) > 0; seen += n) {
                    if (flipAt >= seen && flipAt < seen + n) {
                      buf[(int) (flipAt - seen)] ^= 1;
                      flipped = true;
                    }
                    to.write(buf, 0, n);
                  }
                } catch (IOException e) {
                  // one side closed
                }
              });
      t.setDaemon(true);
      t.start();
      return t;
    }

    int port() {
      return listener.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      listener.close();
    }
  }
}
