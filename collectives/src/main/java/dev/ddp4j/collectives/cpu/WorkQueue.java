package dev.ddp4j.collectives.cpu;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The cpu group's queue of collectives and who runs it. Whoever holds the engine lock runs the
 * queue in order: a caller awaiting its work (the usual case: no thread hand-off, so an 8-byte
 * all-reduce costs microseconds), or else the background progress thread, which takes over work
 * nobody awaited for {@link #HANDOFF_GRACE_NS} (so async collectives overlap the caller's compute).
 */
final class WorkQueue {

  private static final long MIN_IDLE_PARK_NS = 50_000L;
  private static final long MAX_IDLE_PARK_NS = 5_000_000L;
  static final long HANDOFF_GRACE_NS = 50_000L;

  private final ConcurrentLinkedQueue<CpuWork> queue = new ConcurrentLinkedQueue<>();
  private final ReentrantLock engine = new ReentrantLock(); // held by whoever runs the queue
  private final Thread progress;
  private volatile boolean stopping;
  private volatile boolean progressIdle;

  WorkQueue(String threadName) {
    progress = new Thread(this::progressLoop, threadName);
    progress.setDaemon(true);
    progress.start();
  }

  void add(CpuWork work) {
    // A lone collective is usually awaited at once and run by its caller; the idle progress thread
    // is woken only once a second one queues up (else it finds the first within MAX_IDLE_PARK_NS).
    boolean alone = queue.isEmpty();
    work.queuedNs = System.nanoTime();
    queue.add(work);
    if (!alone && progressIdle) {
      LockSupport.unpark(progress);
    }
  }

  private void progressLoop() {
    long parkNs = MIN_IDLE_PARK_NS;
    while (!stopping) {
      CpuWork head = queue.peek();
      long ageNs = head == null ? 0 : System.nanoTime() - head.queuedNs;
      if (head == null || ageNs < HANDOFF_GRACE_NS || !engine.tryLock()) {
        progressIdle = true;
        if (!stopping) {
          long wait = head == null ? parkNs : Math.max(HANDOFF_GRACE_NS - ageNs, MIN_IDLE_PARK_NS);
          LockSupport.parkNanos(this, wait);
        }
        progressIdle = false;
        // Idle wake-ups preempt a spinning rank on a busy core: back off while callers run their
        // own collectives.
        parkNs = Math.min(MAX_IDLE_PARK_NS, parkNs * 2);
        continue;
      }
      try {
        drain(null);
      } finally {
        engine.unlock();
      }
      parkNs = MIN_IDLE_PARK_NS;
    }
  }

  /** Runs queued work in order until {@code until} completed (or the queue is empty). */
  private void drain(CpuWork until) {
    CpuWork next;
    while ((until == null || !until.isCompleted()) && (next = queue.poll()) != null) {
      next.body.run();
    }
  }

  /**
   * Runs the queue on the calling thread up to {@code work} unless another thread is running it;
   * true if {@code work} is complete afterwards.
   */
  boolean helpUntil(CpuWork work) {
    if (engine.tryLock()) {
      try {
        drain(work);
      } finally {
        engine.unlock();
      }
    }
    return work.isCompleted();
  }

  /**
   * Runs everything queued (waiting for the thread running it now), then stops the progress thread;
   * false if it is still busy after {@code joinMs}.
   */
  boolean finishAndStop(long joinMs) {
    engine.lock();
    try {
      drain(null);
    } finally {
      engine.unlock();
    }
    stopping = true;
    LockSupport.unpark(progress);
    try {
      progress.join(joinMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !progress.isAlive();
  }

  /** Takes the next work that never ran (after {@link #finishAndStop}), or null. */
  CpuWork poll() {
    return queue.poll();
  }
}
