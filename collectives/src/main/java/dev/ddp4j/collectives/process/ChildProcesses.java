package dev.ddp4j.collectives.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Child processes started as one group and stopped as one: the launcher's workers, the ranks of
 * {@code launcher.jar bench}, and the GPU tests' rank JVMs. It waits for the first to fail or for
 * all to succeed, and stops whatever still runs (SIGTERM to each and everything it started, SIGKILL
 * after a grace period), so that no child outlives its group. How children are started and where
 * their output goes stays with the caller; {@code T} is the caller's handle of one child.
 */
public final class ChildProcesses<T> {

  /** How a wait ended. */
  public record Ending<T>(List<T> failed, Optional<String> stopped, List<T> running) {

    /** Every child exited 0. */
    public boolean succeeded() {
      return failed.isEmpty() && stopped.isEmpty();
    }
  }

  private final Function<T, Process> processOf;
  private final List<T> children = new ArrayList<>();
  private final BlockingQueue<T> exits = new LinkedBlockingQueue<>();

  /** Children that had not been seen to exit when the last wait returned. */
  private final Set<T> running = new LinkedHashSet<>();

  /**
   * @param processOf the process of one child handle
   */
  public ChildProcesses(Function<T, Process> processOf) {
    this.processOf = processOf;
  }

  /** Adds a started child. */
  public synchronized void add(T child) {
    children.add(child);
    running.add(child);
    processOf.apply(child).onExit().thenRun(() -> exits.add(child));
  }

  public synchronized List<T> children() {
    return List.copyOf(children);
  }

  /**
   * Waits until every child exited 0, one exited non-zero (returned with any other that failed in
   * the same instant, e.g. an OOM killer pass: root causes too), or {@code stop}, asked every
   * {@code tick}, gives a reason. Another call goes on with the children still running.
   */
  public Ending<T> await(Duration tick, Supplier<Optional<String>> stop) {
    while (true) {
      T exited;
      try {
        exited = exits.poll(tick.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ending(List.of(), Optional.of("the waiting thread was interrupted"));
      }
      if (exited != null) {
        List<T> failed = new ArrayList<>();
        for (T c = exited; c != null; c = exits.poll()) {
          synchronized (this) {
            running.remove(c);
          }
          if (processOf.apply(c).exitValue() != 0) {
            failed.add(c);
          }
          if (failed.isEmpty()) {
            break; // a clean exit: look at the others as they come
          }
        }
        if (!failed.isEmpty()) {
          return ending(failed, Optional.empty());
        }
        synchronized (this) {
          if (running.isEmpty()) {
            return ending(List.of(), Optional.empty());
          }
        }
        continue;
      }
      Optional<String> reason = stop.get();
      if (reason.isPresent()) {
        return ending(List.of(), reason);
      }
    }
  }

  /** {@link #await} until {@code limit} has passed, then stopped naming it. */
  public Ending<T> await(Duration tick, Duration limit) {
    long deadlineNs = System.nanoTime() + limit.toNanos();
    String reason =
        "ran past its limit of "
            + (limit.toMillis() < 1000 ? limit.toMillis() + " ms" : limit.toSeconds() + " s");
    return await(
        tick, () -> System.nanoTime() - deadlineNs > 0 ? Optional.of(reason) : Optional.empty());
  }

  private synchronized Ending<T> ending(List<T> failed, Optional<String> stopped) {
    return new Ending<>(failed, stopped, List.copyOf(running));
  }

  /**
   * Stops every child still running (SIGTERM to it and its descendants, SIGKILL to whatever is left
   * after {@code grace}) and waits up to 5 s for each to be gone; returns how many were running.
   * Safe to call more than once.
   */
  public synchronized int stopAll(Duration grace) {
    List<Process> alive = children.stream().map(processOf).filter(Process::isAlive).toList();
    for (Process p : alive) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
    }
    long deadlineNs = System.nanoTime() + grace.toNanos();
    for (Process p : alive) {
      long leftNs = deadlineNs - System.nanoTime();
      try {
        if (leftNs <= 0 || !p.waitFor(leftNs, TimeUnit.NANOSECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (T c : children) {
      Process p = processOf.apply(c);
      if (p.isAlive() || p.descendants().findAny().isPresent()) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
    for (T c : children) {
      try {
        processOf.apply(c).waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return alive.size();
  }
}
