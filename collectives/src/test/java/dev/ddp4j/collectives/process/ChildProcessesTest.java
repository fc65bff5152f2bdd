package dev.ddp4j.collectives.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real child processes (sh), started, awaited and stopped as one group. */
class ChildProcessesTest {

  private static final Duration TICK = Duration.ofMillis(20);

  private final ChildProcesses<Process> group = new ChildProcesses<>(p -> p);

  @AfterEach
  void stopLeftovers() {
    group.stopAll(Duration.ZERO);
  }

  private Process start(String script) throws IOException {
    Process p = new ProcessBuilder("sh", "-c", script).start();
    group.add(p);
    return p;
  }

  @Test
  void shouldSucceedOnceEveryChildExitedZero() throws IOException {
    start("exit 0");
    start("sleep 0.3; exit 0");

    ChildProcesses.Ending<Process> end = group.await(TICK, Duration.ofSeconds(30));

    assertThat(end.succeeded()).isTrue();
    assertThat(end.running()).isEmpty();
  }

  @Test
  void shouldReturnTheFailedChildWhileTheOthersStillRun() throws IOException {
    Process sleeper = start("sleep 60");
    Process failing = start("sleep 0.2; exit 3");

    ChildProcesses.Ending<Process> end = group.await(TICK, Duration.ofSeconds(30));

    assertThat(end.failed()).containsExactly(failing);
    assertThat(end.stopped()).isEmpty();
    assertThat(end.running()).containsExactly(sleeper);
    assertThat(sleeper.isAlive()).isTrue();
  }

  @Test
  void shouldStopNamingTheReasonAndTheChildrenStillRunning() throws IOException {
    Process done = start("exit 0");
    Process a = start("sleep 60");
    Process b = start("sleep 60");

    ChildProcesses.Ending<Process> end = group.await(TICK, Duration.ofMillis(300));

    assertThat(end.stopped()).contains("ran past its limit of 300 ms");
    assertThat(end.running()).containsExactly(a, b).doesNotContain(done);
    assertThat(end.succeeded()).isFalse();
  }

  @Test
  void shouldAskTheCallersStopReasonWhileWaiting() throws IOException {
    start("sleep 60");

    ChildProcesses.Ending<Process> end = group.await(TICK, () -> Optional.of("the store is gone"));

    assertThat(end.stopped()).contains("the store is gone");
  }

  @Test
  void shouldLeaveNoChildNorGrandchildRunningAfterStopAll() throws IOException {
    // sh ignores nothing here, but its own child (the sleep) would outlive it if only sh got the
    // signal: stopAll must reach the descendants too.
    Process parent = start("sleep 60 & wait");
    Process plain = start("sleep 60");
    awaitChild(parent);
    List<ProcessHandle> grandchildren = parent.descendants().toList();
    assertThat(grandchildren).isNotEmpty();

    int stopped = group.stopAll(Duration.ofSeconds(2));

    assertThat(stopped).isEqualTo(2);
    assertThat(parent.isAlive()).isFalse();
    assertThat(plain.isAlive()).isFalse();
    // A killed grandchild is reaped by init, not by us: give that a moment.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(grandchildren).noneMatch(ProcessHandle::isAlive));
    assertThat(group.stopAll(Duration.ZERO)).isZero(); // safe to call again
  }

  /** Until sh has started its sleep (a few ms), bounded. */
  private static void awaitChild(Process p) {
    long deadlineNs = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (p.descendants().findAny().isEmpty() && System.nanoTime() - deadlineNs < 0) {
      Thread.onSpinWait();
    }
  }
}
