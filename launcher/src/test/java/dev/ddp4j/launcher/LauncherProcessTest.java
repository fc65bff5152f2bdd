package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The done-when checks, with the launcher and its workers as real JVMs. */
class LauncherProcessTest {

  @TempDir Path tmp;

  @Test
  void fourWorkersShouldSeeRanksZeroToThreePassABarrierAndExitZero() throws Exception {
    try (LauncherRun run =
        LauncherRun.start("--nproc-per-node=4", "--master-port=0", "BarrierWorker")) {
      assertThat(run.exitCode(Duration.ofSeconds(90))).as(run.output()).isZero();
      for (int i = 0; i < 4; i++) {
        int r = i;
        assertThat(run.lines)
            .contains("[rank" + r + "]:passed barrier")
            .anyMatch(
                l ->
                    l.startsWith(
                        "[rank"
                            + r
                            + "]:rank="
                            + r
                            + " world=4 local="
                            + r
                            + "/4 group=0 restart=0 omp=1 "));
      }
    }
  }

  @Test
  void aWorkerExitingThreeShouldBringTheLauncherDownWithinFiveSecondsNamingRankAndCode()
      throws Exception {
    try (LauncherRun run =
        LauncherRun.start("--nproc-per-node=4", "--standalone", "ExitWorker", "2", "3")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> run.lines.contains("[rank2]:rank 2 failing on purpose"));
      long t0 = System.nanoTime();
      int code = run.exitCode(Duration.ofSeconds(30));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
      String out = run.output();
      assertThat(code).as(out).isEqualTo(1);
      assertThat(out)
          .contains("job failed: root cause rank 2; stopped the other 3 worker(s)")
          .contains(
              "rank 2 (local rank 2, node 0) on host " + NodeRendezvous.host() + ": exit code 3")
          .contains("    last stderr line: rank 2 failing on purpose");
      assertThat(run.workerPids()).hasSize(4);
      assertThat(LauncherRun.allDead(run.workerPids())).isTrue();
    }
  }

  @Test
  void aWorkerKilledBySignalShouldBeReportedWithTheSignal() throws Exception {
    try (LauncherRun run =
        LauncherRun.start("--nproc-per-node=2", "--standalone", "ExitWorker", "1", "kill9")) {
      assertThat(run.exitCode(Duration.ofSeconds(60))).isEqualTo(1);
      assertThat(run.output())
          .contains("rank 1 (local rank 1, node 0)")
          .contains("killed by signal 9, SIGKILL");
    }
  }

  @Test
  void noWorkerShouldOutliveALauncherKilledWithSigkill() throws Exception {
    try (LauncherRun run = LauncherRun.start("--nproc-per-node=4", "--standalone", "HangWorker")) {
      await().atMost(Duration.ofSeconds(60)).until(() -> run.workerPids().size() == 4);
      List<Long> pids = run.workerPids();
      run.process.destroyForcibly();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> LauncherRun.allDead(pids));
    }
  }

  @Test
  void sigtermToTheLauncherShouldStopEveryWorker() throws Exception {
    try (LauncherRun run = LauncherRun.start("--nproc-per-node=3", "--standalone", "HangWorker")) {
      await().atMost(Duration.ofSeconds(60)).until(() -> run.workerPids().size() == 3);
      List<Long> pids = run.workerPids();
      // Not Process.destroy(): it closes the launcher's output pipes, losing its last lines.
      new ProcessBuilder("kill", "-TERM", Long.toString(run.process.pid())).start().waitFor();
      assertThat(run.exitCode(Duration.ofSeconds(10))).isEqualTo(143);
      assertThat(LauncherRun.allDead(pids)).isTrue();
      assertThat(run.output()).contains("[launcher] signalled: stopped every worker");
    }
  }

  @Test
  void maxRestartsShouldRestartTheWholeGroupAfterAFailure() throws Exception {
    try (LauncherRun run =
        LauncherRun.start(
            "--nproc-per-node=2",
            "--standalone",
            "--max-restarts=1",
            "BarrierWorker",
            "failFirstAttempt=1")) {
      assertThat(run.exitCode(Duration.ofSeconds(90))).as(run.output()).isZero();
      assertThat(run.output())
          .contains("restarting the worker group (restart 1 of 1)")
          .contains("[rank0]:rank=0 world=2 local=0/2 group=0 restart=1")
          .contains("[rank1]:passed barrier");
    }
  }

  @Test
  void logDirWithRedirectsShouldSendOutputToPerRankFilesOnly() throws Exception {
    Path logs = tmp.resolve("logs");
    try (LauncherRun run =
        LauncherRun.start(
            "--nproc-per-node=2",
            "--standalone",
            "--log-dir=" + logs,
            "--redirects=3",
            "BarrierWorker")) {
      assertThat(run.exitCode(Duration.ofSeconds(90))).as(run.output()).isZero();
      assertThat(run.output()).doesNotContain("[rank0]:").doesNotContain("[rank1]:");
    }
    assertThat(Files.readAllLines(logs.resolve("0/rank1.out")))
        .contains("passed barrier")
        .anyMatch(l -> l.startsWith("rank=1 world=2"));
    assertThat(logs.resolve("0/rank0.err")).exists();
  }

  @Test
  void teeAndLocalRanksFilterShouldShowOnlyTheChosenRanksOnTheConsole() throws Exception {
    Path logs = tmp.resolve("tee");
    try (LauncherRun run =
        LauncherRun.start(
            "--nproc-per-node=3",
            "--standalone",
            "--log-dir=" + logs,
            "--tee=1",
            "--local-ranks-filter=1",
            "BarrierWorker")) {
      assertThat(run.exitCode(Duration.ofSeconds(90))).as(run.output()).isZero();
      assertThat(run.lines).contains("[rank1]:passed barrier");
      assertThat(run.output()).doesNotContain("[rank0]:").doesNotContain("[rank2]:");
    }
    assertThat(Files.readAllLines(logs.resolve("0/rank2.out"))).contains("passed barrier");
  }
}
