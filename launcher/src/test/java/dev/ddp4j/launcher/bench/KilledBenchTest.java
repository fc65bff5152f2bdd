package dev.ddp4j.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code launcher.jar bench} as a real process, killed with SIGKILL while its ranks run. */
class KilledBenchTest {

  @Test
  void shouldLeaveNoRankRunningWhenTheBenchIsKilled() throws Exception {
    // Two billion calls of 8 bytes: the ranks run for hours unless something ends them.
    Process bench =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.ddp4j.launcher.LauncherMain",
                "bench",
                "--nproc-per-node=2",
                "-b",
                "8",
                "-e",
                "8",
                "-n",
                "2000000000",
                "--jvm-arg=-Xmx256m")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    List<ProcessHandle> ranks = List.of();
    try {
      ranks =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> bench.children().toList(), r -> r.size() == 2);
      assertThat(ranks)
          .allSatisfy(
              r ->
                  assertThat(r.info().arguments().map(List::of).orElse(List.of()))
                      .contains("dev.ddp4j.launcher.WorkerBootstrap"));
      bench.destroyForcibly();
      // The ranks' watchdog sees their parent gone within 250 ms and exits them.
      List<ProcessHandle> started = ranks;
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(started)
                      .as("rank JVMs still running after the bench was killed")
                      .noneMatch(ProcessHandle::isAlive));
    } finally {
      bench.destroyForcibly();
      ranks.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
