package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The workers of one attempt on this node: starts them, waits for the first failure or for all to
 * succeed, and stops them (SIGTERM to each and its children, SIGKILL after a grace period).
 */
final class WorkerGroup {

  static final Duration STOP_GRACE = Duration.ofSeconds(3);

  private final List<WorkerProcess> workers = new ArrayList<>();
  private final BlockingQueue<WorkerProcess> exits = new LinkedBlockingQueue<>();
  private final String host = hostName();

  static WorkerGroup start(
      LaunchConfig c, List<WorkerSpec> specs, InitMethod store, Optional<Path> numactl) {
    WorkerGroup g = new WorkerGroup();
    try {
      for (WorkerSpec s : specs) {
        WorkerProcess w = WorkerProcess.start(c, s, store, numactl);
        g.add(w);
      }
    } catch (RuntimeException e) {
      g.stopAll(STOP_GRACE);
      throw e;
    }
    return g;
  }

  private synchronized void add(WorkerProcess w) {
    workers.add(w);
    w.process.onExit().thenRun(() -> exits.add(w));
  }

  /**
   * Waits until every worker exited 0 (SUCCEEDED), one exited non-zero (FAILED, naming it and any
   * other that failed at the same time), or {@code external} reports a reason to stop (STOPPED).
   * Checks {@code external} every {@code tick}.
   */
  GroupOutcome await(Duration tick, Supplier<Optional<String>> external) {
    Set<WorkerProcess> running;
    synchronized (this) {
      running = new HashSet<>(workers);
    }
    while (true) {
      WorkerProcess w;
      try {
        w = exits.poll(tick.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return GroupOutcome.stopped("the launcher was interrupted");
      }
      if (w != null) {
        running.remove(w);
        if (w.process.exitValue() != 0) {
          List<WorkerProcess> failed = new ArrayList<>();
          failed.add(w);
          // Workers that died in the same instant (e.g. an OOM killer pass) are root causes too.
          WorkerProcess more;
          while ((more = exits.poll()) != null) {
            running.remove(more);
            if (more.process.exitValue() != 0) {
              failed.add(more);
            }
          }
          Instant now = Instant.now();
          List<GroupOutcome.Failure> failures = new ArrayList<>();
          for (WorkerProcess f : failed) {
            failures.add(
                new GroupOutcome.Failure(
                    f.spec,
                    host,
                    f.process.exitValue(),
                    now,
                    f.stderrTail(),
                    WorkerError.read(f.errorFile),
                    f.stderrOnConsole));
          }
          return GroupOutcome.failed(failures);
        }
        if (running.isEmpty()) {
          return GroupOutcome.succeeded();
        }
        continue;
      }
      Optional<String> stop = external.get();
      if (stop.isPresent()) {
        return GroupOutcome.stopped(stop.get());
      }
    }
  }

  /** Stops every worker still running; returns how many were. Safe to call more than once. */
  synchronized int stopAll(Duration grace) {
    List<WorkerProcess> alive = workers.stream().filter(w -> w.process.isAlive()).toList();
    alive.forEach(WorkerProcess::terminate);
    long deadlineNs = System.nanoTime() + grace.toNanos();
    for (WorkerProcess w : alive) {
      long leftNs = deadlineNs - System.nanoTime();
      try {
        if (leftNs <= 0 || !w.process.waitFor(leftNs, TimeUnit.NANOSECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (WorkerProcess w : workers) {
      if (w.process.isAlive() || w.process.descendants().findAny().isPresent()) {
        w.kill();
      }
    }
    for (WorkerProcess w : workers) {
      try {
        w.process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // The output pumps are daemon threads: let them print the workers' last lines before the
    // launcher reports and exits (a loaded machine can leave them seconds behind).
    long drainDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (WorkerProcess w : workers) {
      w.drain(Math.max(1, (drainDeadlineNs - System.nanoTime()) / 1_000_000));
    }
    return alive.size();
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
