package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.store.StoreSecret;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --max-restarts} in a two-node job on loopback: the whole job restarts, every node. */
class MultiNodeRestartTest {

  private static final Map<String, String> SECRET =
      Map.of(StoreSecret.SECRET_VAR, "multi-node-restart-test");

  private static String[] node(int rank, int port, String... program) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--nnodes=2",
                "--node-rank=" + rank,
                "--nproc-per-node=2",
                "--master-port=" + port,
                "--max-restarts=1"));
    args.addAll(List.of(program));
    return args.toArray(String[]::new);
  }

  @Test
  void aWorkerFailingItsFirstAttemptOnOneNodeShouldRestartEveryNodeAndThenSucceed()
      throws Exception {
    int port = MultiNodeTest.freePort();
    try (LauncherRun a =
            LauncherRun.start(SECRET, node(0, port, "BarrierWorker", "failFirstAttempt=3"));
        LauncherRun b =
            LauncherRun.start(SECRET, node(1, port, "BarrierWorker", "failFirstAttempt=3"))) {
      assertThat(b.exitCode(Duration.ofSeconds(90))).as(b.output()).isZero();
      assertThat(a.exitCode(Duration.ofSeconds(30))).as(a.output()).isZero();
      assertThat(b.output())
          .contains("round 0 failed: root cause rank 3")
          .contains("node 1 restarting the job with every node (restart 1 of 1)");
      assertThat(a.output())
          .contains("another node failed")
          .contains("node 0 restarting the job with every node (restart 1 of 1)");
      List<String> all = new ArrayList<>(a.lines);
      all.addAll(b.lines);
      for (int r = 0; r < 4; r++) {
        int rank = r;
        assertThat(all)
            .anyMatch(
                l ->
                    l.startsWith("[rank" + rank + "]:rank=" + rank + " world=4")
                        && l.contains(" restart=1 "));
        assertThat(all.stream().filter(l -> l.equals("[rank" + rank + "]:passed barrier")))
            .as("rank %d passes the barrier once, in the second round", rank)
            .hasSize(1);
      }
      assertThat(LauncherRun.allDead(pids(a, b))).isTrue();
    }
  }

  @Test
  void aWorkerFailingEveryAttemptShouldEndEveryNodeNonZeroNamingItAfterTheRestarts()
      throws Exception {
    int port = MultiNodeTest.freePort();
    try (LauncherRun a = LauncherRun.start(SECRET, node(0, port, "ExitWorker", "3", "7"));
        LauncherRun b = LauncherRun.start(SECRET, node(1, port, "ExitWorker", "3", "7"))) {
      assertThat(b.exitCode(Duration.ofSeconds(90))).as(b.output()).isEqualTo(1);
      assertThat(a.exitCode(Duration.ofSeconds(30))).as(a.output()).isEqualTo(1);
      assertThat(b.output())
          .contains("round 0 failed: root cause rank 3")
          .contains("job failed after 1 restart(s): root cause rank 3")
          .contains("exit code 7");
      assertThat(a.output())
          .contains("node 0 restarting the job with every node (restart 1 of 1)")
          .contains("job failed after 1 restart(s): another node failed")
          .contains("rank 3 (local rank 1, node 1)");
      assertThat(LauncherRun.allDead(pids(a, b))).isTrue();
    }
  }

  private static List<Long> pids(LauncherRun a, LauncherRun b) {
    List<Long> pids = new ArrayList<>(a.workerPids());
    pids.addAll(b.workerPids());
    return pids;
  }
}
