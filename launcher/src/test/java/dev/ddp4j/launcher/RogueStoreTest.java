package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.store.StoreProtocolDescriptor;
import dev.ddp4j.collectives.store.StoreSecret;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A process that does not know the job secret binds the master port before the job's launchers:
 * they must refuse it with one clear line and stop, not run the job through it.
 */
class RogueStoreTest {

  private static final Map<String, String> SECRET = Map.of(StoreSecret.SECRET_VAR, "rogue-test");

  @Test
  void aLauncherShouldRefuseAStoreThatCannotProveTheSecretAndStop() throws Exception {
    assertRefused("--node-rank=1");
  }

  @Test
  void aJoinOrderLauncherThatCannotBindShouldSaySoAndRefuseTheStranger() throws Exception {
    LauncherRun run = assertRefused("--node-rank=-1");
    assertThat(run.output()).contains("cannot host the store at 127.0.0.1:");
  }

  private static LauncherRun assertRefused(String nodeRank) throws Exception {
    try (ServerSocket rogue = new ServerSocket(0);
        Rogue r = new Rogue(rogue)) {
      r.start();
      try (LauncherRun run =
          LauncherRun.start(
              SECRET,
              "--nnodes=2",
              nodeRank,
              "--nproc-per-node=1",
              "--master-port=" + rogue.getLocalPort(),
              "BarrierWorker")) {
        assertThat(run.exitCode(Duration.ofSeconds(60))).as(run.output()).isEqualTo(1);
        assertThat(run.output())
            .contains("could not prove the job secret")
            .doesNotContain("Exception\n\tat ");
        assertThat(r.requestsAfterWelcome.get()).isZero();
        return run;
      }
    }
  }

  /** Answers every connection with a challenge, then "OK" to whatever comes back. */
  private static final class Rogue extends Thread implements AutoCloseable {
    private final ServerSocket socket;
    final AtomicInteger requestsAfterWelcome = new AtomicInteger();

    Rogue(ServerSocket socket) {
      super("rogue-store");
      this.socket = socket;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!socket.isClosed()) {
        try (Socket s = socket.accept()) {
          s.setSoTimeout(2_000);
          DataOutputStream out = new DataOutputStream(s.getOutputStream());
          DataInputStream in = new DataInputStream(s.getInputStream());
          byte[] nonce = new byte[StoreProtocolDescriptor.NONCE_BYTES];
          new SecureRandom().nextBytes(nonce);
          frame(
              out,
              StoreProtocolDescriptor.STATUS_CHALLENGE,
              ByteBuffer.allocate(36).putInt(StoreProtocolDescriptor.VERSION).put(nonce).array());
          in.readFully(new byte[in.readInt()]);
          frame(out, StoreProtocolDescriptor.STATUS_OK, new byte[0]);
          try {
            in.readFully(new byte[in.readInt()]);
            requestsAfterWelcome.incrementAndGet();
          } catch (IOException closedOrQuiet) {
            // what a client that refused us does
          }
        } catch (IOException e) {
          // closed, or a client that gave up
        }
      }
    }

    private static void frame(DataOutputStream out, byte code, byte[] body) throws IOException {
      out.writeInt(StoreProtocolDescriptor.HEADER_BYTES + body.length);
      out.writeByte(code);
      out.writeInt(0);
      out.write(body);
      out.flush();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
