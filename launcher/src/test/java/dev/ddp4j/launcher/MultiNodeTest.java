package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.collectives.store.StoreSecret;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two launchers on loopback forming one job, and one taking the other down when it dies. */
class MultiNodeTest {

  private static final Map<String, String> SECRET =
      Map.of(StoreSecret.SECRET_VAR, "multi-node-test");

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void twoLaunchersInJoinOrderShouldFormOneJobOfFourRanks() throws Exception {
    int port = freePort();
    String[] args = {
      "--nnodes=2",
      "--nproc-per-node=2",
      "--master-addr=127.0.0.1",
      "--master-port=" + port,
      "BarrierWorker"
    };
    TwoNodes job = runTwoNodes(args);
    for (int i = 0; i < 4; i++) {
      int r = i;
      assertThat(job.lines())
          .contains("[rank" + r + "]:passed barrier")
          .anyMatch(
              l ->
                  l.startsWith(
                      "[rank"
                          + r
                          + "]:rank="
                          + r
                          + " world=4 local="
                          + (r % 2)
                          + "/2 group="
                          + (r / 2)));
    }
    assertThat(job.output()).contains("(hosting the store)");
  }

  /** The lines and output of two launchers that both exited 0. */
  private record TwoNodes(List<String> lines, String output) {}

  /** Runs two launchers with the same {@code args} and asserts that both exit 0 within 90 s. */
  private static TwoNodes runTwoNodes(String[] args) throws Exception {
    try (LauncherRun a = LauncherRun.start(SECRET, args);
        LauncherRun b = LauncherRun.start(SECRET, args)) {
      assertThat(a.exitCode(Duration.ofSeconds(90))).as(a.output()).isZero();
      assertThat(b.exitCode(Duration.ofSeconds(90))).as(b.output()).isZero();
      List<String> all = new ArrayList<>(a.lines);
      all.addAll(b.lines);
      return new TwoNodes(all, a.output() + b.output());
    }
  }

  @Test
  void rdzvEndpointAndInitMethodShouldNameTheSameStore() throws Exception {
    int port = freePort();
    try (LauncherRun a =
            LauncherRun.start(
                SECRET,
                "--nnodes=2",
                "--node-rank=0",
                "--nproc-per-node=1",
                "--rdzv-endpoint=127.0.0.1:" + port,
                "BarrierWorker");
        LauncherRun b =
            LauncherRun.start(
                SECRET,
                "--nnodes=2",
                "--node-rank=1",
                "--nproc-per-node=1",
                "--init-method=tcp://127.0.0.1:" + port,
                "BarrierWorker")) {
      assertThat(a.exitCode(Duration.ofSeconds(90))).as(a.output()).isZero();
      assertThat(b.exitCode(Duration.ofSeconds(90))).as(b.output()).isZero();
      assertThat(b.lines).contains("[rank1]:passed barrier");
    }
  }

  @Test
  void twoLaunchersSharingAFileInitMethodShouldFormOneJob(@TempDir Path dir) throws Exception {
    String[] args = {
      "--nnodes=2",
      "--nproc-per-node=2",
      "--init-method=file://" + dir.resolve("x"),
      "BarrierWorker"
    };
    TwoNodes job = runTwoNodes(args);
    for (int r = 0; r < 4; r++) {
      int rank = r;
      assertThat(job.lines())
          .contains("[rank" + r + "]:passed barrier")
          .anyMatch(l -> l.startsWith("[rank" + rank + "]:rank=" + rank + " world=4"));
    }
    assertThat(job.output())
        .contains("node 0 of 2 joined the job at file://")
        .contains("node 1 of 2 joined the job at file://");
  }

  @Test
  void killingTheHostNodeShouldEndTheOtherNonZeroWithinTenSeconds() throws Exception {
    killOneNode(0);
  }

  @Test
  void killingANonHostNodeShouldEndTheHostNonZeroWithinTenSeconds() throws Exception {
    killOneNode(1);
  }

  @Test
  void aFailingWorkerOnOneNodeShouldTakeDownTheOtherNode() throws Exception {
    int port = freePort();
    try (LauncherRun a =
            LauncherRun.start(
                SECRET,
                "--nnodes=2",
                "--node-rank=0",
                "--nproc-per-node=2",
                "--master-port=" + port,
                "ExitWorker",
                "3",
                "7");
        LauncherRun b =
            LauncherRun.start(
                SECRET,
                "--nnodes=2",
                "--node-rank=1",
                "--nproc-per-node=2",
                "--master-port=" + port,
                "ExitWorker",
                "3",
                "7")) {
      assertThat(b.exitCode(Duration.ofSeconds(60))).as(b.output()).isEqualTo(1);
      assertThat(b.output()).contains("root cause rank 3").contains("exit code 7");
      assertThat(a.exitCode(Duration.ofSeconds(20))).as(a.output()).isEqualTo(1);
      assertThat(a.output())
          .contains("another node failed")
          .contains("rank 3 (local rank 1, node 1)");
      List<Long> pids = new ArrayList<>(a.workerPids());
      pids.addAll(b.workerPids());
      assertThat(LauncherRun.allDead(pids)).isTrue();
    }
  }

  private static void killOneNode(int victim) throws Exception {
    int port = freePort();
    try (LauncherRun a =
            LauncherRun.start(
                SECRET,
                "--nnodes=2",
                "--node-rank=0",
                "--nproc-per-node=2",
                "--master-port=" + port,
                "HangWorker");
        LauncherRun b =
            LauncherRun.start(
                SECRET,
                "--nnodes=2",
                "--node-rank=1",
                "--nproc-per-node=2",
                "--master-port=" + port,
                "HangWorker")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> a.workerPids().size() == 2 && b.workerPids().size() == 2);
      LauncherRun dead = victim == 0 ? a : b;
      LauncherRun survivor = victim == 0 ? b : a;
      List<Long> pids = new ArrayList<>(a.workerPids());
      pids.addAll(b.workerPids());
      dead.process.destroyForcibly();
      long t0 = System.nanoTime();
      int code = survivor.exitCode(Duration.ofSeconds(15));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
      assertThat(code).as(survivor.output()).isEqualTo(1);
      assertThat(survivor.output())
          .contains(victim == 0 ? "lost the job's store" : "node 1 (")
          .contains(victim == 0 ? "node 0" : "stopped sending heartbeats");
      await().atMost(Duration.ofSeconds(10)).until(() -> LauncherRun.allDead(pids));
    }
  }
}
