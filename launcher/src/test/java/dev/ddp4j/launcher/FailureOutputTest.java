package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.spi.BackendProvider;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What a user reads when something goes wrong, through the real launcher and worker JVMs: the
 * culprit named once, one stack trace at most, and configuration mistakes as one line naming the
 * value and the fix.
 */
class FailureOutputTest {

  @Test
  void aCollectiveTimeoutShouldNameTheRankThatNeverCalledItAsRootCauseAndShowOneStackTrace()
      throws Exception {
    try (LauncherRun run =
        LauncherRun.start(
            Map.of("DDP4J_TIMEOUT_SECONDS", "3", "DDP4J_BACKEND", "cpu"),
            "--nproc-per-node=2",
            "--standalone",
            "CollectiveTimeoutWorker",
            "1")) {
      int code = run.exitCode(Duration.ofSeconds(90));
      String out = run.output();
      assertThat(code).as(out).isEqualTo(1);
      assertThat(out)
          .contains(
              "[launcher] job failed: root cause rank 1 (never arrived at the collective that rank 0"
                  + " timed out waiting for); stopped the other 1 worker(s)")
          .contains(
              "    DdpTimeoutException: allReduce of 16 float32 with SUM #0 on rank 0 timed out:"
                  + " ranks that never arrived: [1]");
      // Rank 0 prints its stack trace once; the report does not repeat it.
      assertThat(run.lines.stream().filter(l -> l.contains("\tat ")).toList())
          .as(out)
          .isNotEmpty()
          .allMatch(l -> l.startsWith("[rank0]:"));
      assertThat(run.lines.stream().filter(l -> l.contains("CollectiveTimeoutWorker.main")).count())
          .as(out)
          .isEqualTo(1);
      assertThat(LauncherRun.allDead(run.workerPids())).isTrue();
    }
  }

  @Test
  void aConfigExceptionInAWorkerShouldBeOneLineWithoutStackTrace() throws Exception {
    try (LauncherRun run =
        LauncherRun.start(
            Map.of("DDP4J_BACKEND", "no-such-backend"),
            "--nproc-per-node=2",
            "--standalone",
            "CollectiveTimeoutWorker",
            "1")) {
      int code = run.exitCode(Duration.ofSeconds(90));
      String out = run.output();
      assertThat(code).as(out).isEqualTo(1);
      assertThat(out)
          .contains("exit code 2")
          .contains(
              "    ConfigException: backend 'no-such-backend' is not known (expected: auto, cpu,"
                  + " cuda or nccl)")
          .doesNotContain("\tat ")
          .doesNotContain("Exception in thread");
    }
  }

  @Test
  void aClasspathEntryThatDoesNotExistShouldBeNamedInOneLine() throws Exception {
    try (LauncherRun run = LauncherRun.start("--nproc-per-node=2", "--classpath=clases", "Train")) {
      int code = run.exitCode(Duration.ofSeconds(60));
      assertThat(code).as(run.output()).isEqualTo(2);
      assertThat(run.lines)
          .containsExactly(
              "launcher.jar: --classpath=clases: clases does not exist (expected: jars or folders"
                  + " joined by ':', such as examples/target/examples.jar; run from the folder they"
                  + " are relative to)");
    }
  }

  @Test
  void benchOnTheCudaBackendWithoutAGpuShouldSaySoInOneLine() throws Exception {
    Optional<String> noGpu = cudaUnavailableReason();
    Assumptions.assumeTrue(
        noGpu.isPresent(), "this machine has a usable GPU, so bench --backend cuda runs");
    try (LauncherRun run = LauncherRun.start("bench", "--nproc-per-node=2", "--backend", "cuda")) {
      int code = run.exitCode(Duration.ofSeconds(60));
      assertThat(code).as(run.output()).isEqualTo(2);
      assertThat(run.lines)
          .containsExactly(
              "launcher.jar: bench: backend 'cuda' cannot run here: "
                  + noGpu.get()
                  + " (use --backend cpu or auto)");
    }
  }

  @Test
  void topoWithoutGpusShouldNotPrintAGpuOrderOfCpuRanks() throws Exception {
    Assumptions.assumeTrue(
        cudaUnavailableReason().isPresent(), "this machine has a GPU: topo plans for it");
    try (LauncherRun run = LauncherRun.start("topo")) {
      int code = run.exitCode(Duration.ofSeconds(60));
      assertThat(code).as(run.output()).isZero();
      assertThat(run.output()).contains("2 CPU ranks on 1 host").doesNotContain("GPU order");
    }
  }

  private static Optional<String> cudaUnavailableReason() {
    for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
      if (p.name().equals("cuda")) {
        return p.unavailableReason();
      }
    }
    return Optional.of("no cuda backend on the classpath");
  }
}
