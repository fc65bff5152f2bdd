package dev.ddp4j.collectives.cpu;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with a growing pause: an 8-byte collective finishes while spinning
 * (microseconds), a peer that is busy reducing a slot is met while yielding, and a rank that waits
 * long for a slow peer stops burning its core. Time based, so it behaves the same whatever a PAUSE
 * instruction costs on this CPU. Not thread safe; one per waiting thread.
 */
final class IdleWaiter {

  private static final long SPIN_NS = 3_000;
  private static final long YIELD_NS = 2_000_000;
  private static final long MIN_PARK_NS = 10_000;
  private static final long MAX_PARK_NS = 1_000_000;

  private long idleSinceNs;
  private int calls;
  private long parkNs = MIN_PARK_NS;

  void idle() {
    if (calls++ == 0) {
      idleSinceNs = System.nanoTime();
      Thread.onSpinWait();
      return;
    }
    long idleNs = System.nanoTime() - idleSinceNs;
    if (idleNs < SPIN_NS) {
      Thread.onSpinWait();
    } else if (idleNs < YIELD_NS) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(parkNs);
      parkNs = Math.min(MAX_PARK_NS, parkNs * 2);
    }
  }

  void reset() {
    calls = 0;
    parkNs = MIN_PARK_NS;
  }
}
