package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import dev.ddp4j.collectives.process.ChildProcesses;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The workers of one attempt on this node: starts them, waits for the first failure or for all to
 * succeed, and stops them (SIGTERM to each and its children, SIGKILL after a grace period), through
 * the one {@link ChildProcesses}; what is the launcher's own is the failure report of each worker.
 */
final class WorkerGroup {

  static final Duration STOP_GRACE = Duration.ofSeconds(3);

  private final ChildProcesses<WorkerProcess> workers =
      new ChildProcesses<>(WorkerProcess::process);
  private final String host = hostName();

  static WorkerGroup start(
      LaunchConfig c, List<WorkerSpec> specs, InitMethod store, Optional<Path> numactl) {
    WorkerGroup g = new WorkerGroup();
    try {
      for (WorkerSpec s : specs) {
        g.workers.add(WorkerProcess.start(c, s, store, numactl));
      }
    } catch (RuntimeException e) {
      g.stopAll(STOP_GRACE);
      throw e;
    }
    return g;
  }

  /**
   * Waits until every worker exited 0 (SUCCEEDED), one exited non-zero (FAILED, naming it and any
   * other that failed at the same time), or {@code external} reports a reason to stop (STOPPED).
   * Checks {@code external} every {@code tick}.
   */
  GroupOutcome await(Duration tick, Supplier<Optional<String>> external) {
    ChildProcesses.Ending<WorkerProcess> end = workers.await(tick, external);
    if (end.stopped().isPresent()) {
      return GroupOutcome.stopped(
          Thread.currentThread().isInterrupted()
              ? "the launcher was interrupted"
              : end.stopped().get());
    }
    if (end.failed().isEmpty()) {
      return GroupOutcome.succeeded();
    }
    Instant now = Instant.now();
    List<GroupOutcome.Failure> failures = new ArrayList<>();
    for (WorkerProcess f : end.failed()) {
      failures.add(
          new GroupOutcome.Failure(
              f.spec(),
              host,
              f.process().exitValue(),
              now,
              f.stderrTail(),
              WorkerError.read(f.errorFile()),
              f.stderrOnConsole()));
    }
    return GroupOutcome.failed(failures);
  }

  /** Stops every worker still running; returns how many were. Safe to call more than once. */
  int stopAll(Duration grace) {
    int stopped = workers.stopAll(grace);
    // The output pumps are daemon threads: let them print the workers' last lines before the
    // launcher reports and exits (a loaded machine can leave them seconds behind).
    long drainDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (WorkerProcess w : workers.children()) {
      w.drain(Math.max(1, (drainDeadlineNs - System.nanoTime()) / 1_000_000));
    }
    return stopped;
  }

  String host() {
    return host;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
