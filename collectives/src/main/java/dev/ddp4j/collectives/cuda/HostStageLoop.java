package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Work;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One staging thread (lane) of a host-staged cuda group, with a cpu group of its own: takes the
 * chunks in the order they were queued, waits until the copy-in stream has put each one into its
 * pinned slot ({@link PinnedStaging#arrived}), runs the chunk's cpu collective on the slot, and
 * releases the slot to the copy-out stream ({@link PinnedStaging#release}). It releases every
 * chunk, also after a failure (later chunks of a failed collective are skipped), so that no GPU
 * stream waits forever. The GPU meanwhile copies the next chunks in and the previous ones out: the
 * pipeline.
 */
final class HostStageLoop implements AutoCloseable {

  /** Runs a chunk's cpu collective on {@code host} over the slot at {@code slotAddress}. */
  interface Body {
    Work run(ProcessGroup host, long slotAddress);
  }

  record Chunk(int slot, int value, StagedWork work, Body body) {}

  private static final long SPIN_NS = 50_000;
  private static final long MAX_PARK_NS = 20_000;

  private final PinnedStaging pinned;
  private final ProcessGroup host;
  private final LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean stopping;

  HostStageLoop(PinnedStaging pinned, ProcessGroup host, String name) {
    this.pinned = pinned;
    this.host = host;
    this.thread = new Thread(this::loop, name);
    thread.setDaemon(true);
    thread.start();
  }

  void add(Chunk c) {
    queue.add(c);
  }

  private void loop() {
    while (true) {
      Chunk c;
      try {
        c = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        c = null;
      }
      if (c == null) {
        if (stopping) {
          return;
        }
        continue;
      }
      Throwable failure = null;
      try {
        if (!c.work().failed() && awaitArrival(c)) {
          Work w = c.body().run(host, pinned.address(c.slot(), 0));
          c.work().current = w;
          w.await();
        }
      } catch (RuntimeException | Error e) {
        failure = e;
      } finally {
        c.work().current = null;
        if (failure != null) {
          // Before the release: the GPU may finish the collective as soon as the slot is out, and
          // whoever then looks at the work must see the failure.
          c.work().noteFailure(failure);
        }
        pinned.release(c.slot(), c.value());
        c.work().chunkDone(failure);
      }
    }
  }

  /** Spins briefly, then parks in short steps; false if the loop is stopping meanwhile. */
  private boolean awaitArrival(Chunk c) {
    if (pinned.arrived(c.slot(), c.value())) {
      return true;
    }
    c.work().waitingForDevice = true;
    try {
      long spinUntil = System.nanoTime() + SPIN_NS;
      long parkNs = 1_000;
      while (!pinned.arrived(c.slot(), c.value())) {
        if (stopping) {
          return false;
        }
        if (System.nanoTime() - spinUntil < 0) {
          Thread.onSpinWait();
        } else {
          LockSupport.parkNanos(parkNs);
          parkNs = Math.min(parkNs * 2, MAX_PARK_NS);
        }
      }
      return true;
    } finally {
      c.work().waitingForDevice = false;
    }
  }

  /**
   * Stops the thread: chunks still queued are released without their collective (their works fail),
   * so the copy streams drain. Waits up to {@code waitMs} for the thread to end.
   */
  boolean stop(long waitMs) {
    stopping = true;
    thread.interrupt();
    try {
      thread.join(waitMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Chunk c; (c = queue.poll()) != null; ) {
      pinned.release(c.slot(), c.value());
      c.work().chunkDone(new IllegalStateException("the cuda group was closed before it ran"));
    }
    return !thread.isAlive();
  }

  @Override
  public void close() {
    stop(1_000);
  }
}
