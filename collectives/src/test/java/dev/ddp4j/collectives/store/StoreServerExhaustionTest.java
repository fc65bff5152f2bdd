package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.Store;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The store in a process of its own whose file descriptors run out: idle sockets from a client that
 * never authenticates must not leave the server unable to accept once they are gone.
 */
class StoreServerExhaustionTest {

  private static final String SECRET = "exhaustion";
  private static final int FD_LIMIT = 400;
  private static final int IDLE_SOCKETS = 800;

  @Test
  void runningOutOfFileDescriptorsShouldNotStopTheServerAcceptingAfterwards() throws Exception {
    // No cap on unauthenticated connections (past the fd limit), so descriptors really run out:
    // what must hold is that nothing thrown then (IOException or Error) kills the accept loop.
    assertServerSurvivesFlood(String.valueOf(1_000_000));
  }

  @Test
  void theDefaultCapShouldKeepAFloodFromExhaustingDescriptors() throws Exception {
    assertServerSurvivesFlood(null);
  }

  private static void assertServerSurvivesFlood(String cap) throws Exception {
    Path log = Files.createTempFile("ddp4j-store-", ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cmd =
        "ulimit -n "
            + FD_LIMIT
            + " && exec '"
            + java
            + "' -cp '"
            + System.getProperty("java.class.path")
            + "' "
            + StoreServerProcess.class.getName()
            + " "
            + SECRET
            + (cap == null ? "" : " " + cap);
    Process p =
        new ProcessBuilder("bash", "-c", cmd)
            .redirectError(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    List<Socket> idle = new ArrayList<>();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8));
      String first = out.readLine();
      assertThat(first).as(Files.readString(log)).startsWith("port=");
      int port = Integer.parseInt(first.substring(5));
      try (Store before = client(port)) {
        before.set("kept", "v".getBytes(UTF_8));
        for (int i = 0; i < IDLE_SOCKETS; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
          idle.add(s);
        }
        Thread.sleep(1000); // let the server try to accept all of them
        if (cap == null) {
          // Already authenticated clients keep being served during the flood.
          assertThat(before.get("kept", Duration.ofSeconds(5))).isEqualTo("v".getBytes(UTF_8));
          try (Store during = client(port)) {
            assertThat(during.add("during", 1)).isEqualTo(1);
          }
        }
      }
      for (Socket s : idle) {
        s.close();
      }
      idle.clear();
      try (Store after = client(port)) {
        assertThat(after.get("kept", Duration.ofSeconds(5))).isEqualTo("v".getBytes(UTF_8));
        assertThat(after.add("after", 3)).isEqualTo(3);
      }
      assertThat(p.isAlive()).isTrue();
    } finally {
      for (Socket s : idle) {
        s.close();
      }
      p.getOutputStream().close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
      }
      System.out.println("store process log:\n" + Files.readString(log));
      Files.deleteIfExists(log);
    }
  }

  private static Store client(int port) {
    return TcpStoreClient.connect("127.0.0.1", port, SECRET, Duration.ofSeconds(20));
  }
}
