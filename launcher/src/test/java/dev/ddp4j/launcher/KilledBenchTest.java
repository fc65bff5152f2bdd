package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code launcher.jar bench} as a real process, killed with SIGKILL while its ranks run. */
class KilledBenchTest {

  @Test
  void shouldLeaveNoRankRunningWhenTheBenchIsKilled() {
    // Two billion calls of 8 bytes: the ranks run for hours unless something ends them.
    try (LauncherRun run =
        LauncherRun.start(
            "bench", "--nproc-per-node=2", "-b", "8", "-e", "8", "-n", "2000000000")) {
      List<ProcessHandle> ranks =
          await("the bench's 2 rank JVMs to start")
              .atMost(Duration.ofSeconds(60))
              .until(() -> run.process.children().toList(), r -> r.size() == 2);
      assertThat(ranks)
          .allSatisfy(
              r ->
                  assertThat(r.info().arguments().map(List::of).orElse(List.of()))
                      .contains(WorkerBootstrap.class.getName()));
      List<Long> pids = ranks.stream().map(ProcessHandle::pid).toList();
      run.process.destroyForcibly();
      // The ranks' watchdog sees their parent gone within 250 ms and exits them.
      try {
        await().atMost(Duration.ofSeconds(20)).until(() -> LauncherRun.allDead(pids));
      } finally {
        ranks.forEach(ProcessHandle::destroyForcibly);
      }
    }
  }
}
