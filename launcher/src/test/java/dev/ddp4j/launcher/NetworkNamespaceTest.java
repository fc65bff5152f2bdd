package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.collectives.store.StoreSecret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two launchers on two "hosts": separate network namespaces joined by a veth pair, each with its
 * own address, so the store really crosses an interface. Needs root and iproute2's {@code ip} (CI
 * runs as root); skipped with the reason otherwise.
 */
class NetworkNamespaceTest {

  private static final int TAG = (int) (ProcessHandle.current().pid() % 200) + 20;
  private static final String NS_A = "ddp4j-a-" + TAG;
  private static final String NS_B = "ddp4j-b-" + TAG;
  private static final String ADDR_A = "10.213." + TAG + ".1";
  private static final String ADDR_B = "10.213." + TAG + ".2";
  private static final Map<String, String> SECRET = Map.of(StoreSecret.SECRET_VAR, "netns-test");
  private static boolean created;

  @BeforeAll
  static void createTwoHosts() throws Exception {
    String user = System.getProperty("user.name");
    Assumptions.assumeTrue(
        "root".equals(user), "needs root to create network namespaces (running as " + user + ")");
    Assumptions.assumeTrue(
        ip("-V").isEmpty(), "iproute2's `ip` is not installed (apt-get install -y iproute2)");
    ip("netns", "del", NS_A);
    ip("netns", "del", NS_B);
    String err = ip("netns", "add", NS_A);
    Assumptions.assumeTrue(err.isEmpty(), "cannot create a network namespace here: " + err);
    created = true;
    run(List.of("netns", "add", NS_B));
    String va = "d4a" + TAG;
    String vb = "d4b" + TAG;
    run(List.of("link", "add", va, "type", "veth", "peer", "name", vb));
    run(List.of("link", "set", va, "netns", NS_A));
    run(List.of("link", "set", vb, "netns", NS_B));
    run(List.of("-n", NS_A, "addr", "add", ADDR_A + "/24", "dev", va));
    run(List.of("-n", NS_B, "addr", "add", ADDR_B + "/24", "dev", vb));
    for (String[] nsDev : new String[][] {{NS_A, va}, {NS_B, vb}, {NS_A, "lo"}, {NS_B, "lo"}}) {
      run(List.of("-n", nsDev[0], "link", "set", nsDev[1], "up"));
    }
  }

  @AfterAll
  static void removeThem() throws Exception {
    if (created) {
      ip("netns", "del", NS_A);
      ip("netns", "del", NS_B);
    }
  }

  @Test
  void twoLaunchersInTwoNamespacesShouldFormOneTwoNodeJob() throws Exception {
    String[] args = {
      "--nnodes=2",
      "--nproc-per-node=2",
      "--master-addr=" + ADDR_A,
      "--master-port=29531",
      "BarrierWorker"
    };
    try (LauncherRun b = LauncherRun.start(List.of("ip", "netns", "exec", NS_B), SECRET, args);
        LauncherRun a = LauncherRun.start(List.of("ip", "netns", "exec", NS_A), SECRET, args)) {
      assertThat(a.exitCode(Duration.ofSeconds(90))).as(a.output()).isZero();
      assertThat(b.exitCode(Duration.ofSeconds(90))).as(b.output()).isZero();
      assertThat(a.output()).contains("(hosting the store)");
      assertThat(b.output()).doesNotContain("(hosting the store)");
      List<String> all = new ArrayList<>(a.lines);
      all.addAll(b.lines);
      for (int r = 0; r < 4; r++) {
        assertThat(all).contains("[rank" + r + "]:passed barrier");
      }
    }
  }

  @Test
  void killingOneNamespacesLauncherShouldEndTheOtherNonZeroWithinTenSeconds() throws Exception {
    String[] args = {
      "--nnodes=2",
      "--nproc-per-node=2",
      "--master-addr=" + ADDR_A,
      "--master-port=29532",
      "HangWorker"
    };
    try (LauncherRun a = LauncherRun.start(List.of("ip", "netns", "exec", NS_A), SECRET, args);
        LauncherRun b = LauncherRun.start(List.of("ip", "netns", "exec", NS_B), SECRET, args)) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> a.workerPids().size() == 2 && b.workerPids().size() == 2);
      List<Long> pids = new ArrayList<>(a.workerPids());
      pids.addAll(b.workerPids());
      b.process.destroyForcibly();
      long t0 = System.nanoTime();
      int code = a.exitCode(Duration.ofSeconds(15));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
      assertThat(code).as(a.output()).isEqualTo(1);
      assertThat(a.output()).contains("stopped sending heartbeats");
      await().atMost(Duration.ofSeconds(10)).until(() -> LauncherRun.allDead(pids));
    }
  }

  /** Runs {@code ip ARGS}; returns its stderr (empty on success), or why it could not run. */
  private static String ip(String... args) throws InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("ip");
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return String.join(" ", cmd) + " hung";
      }
      return p.exitValue() == 0 ? "" : (err.isEmpty() ? "exit " + p.exitValue() : err);
    } catch (IOException e) {
      return e.getMessage();
    }
  }

  private static void run(List<String> args) throws InterruptedException {
    String err = ip(args.toArray(String[]::new));
    if (!err.isEmpty()) {
      throw new IllegalStateException("ip " + String.join(" ", args) + " failed: " + err);
    }
  }
}
