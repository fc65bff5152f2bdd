package dev.ddp4j.collectives.cpu;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with a growing pause: an 8-byte collective finishes while spinning
 * (microseconds), a peer that is busy reducing a slot is met while yielding, and a rank that waits
 * long for a slow peer stops burning its core. Time based, so it behaves the same whatever a PAUSE
 * instruction costs on this CPU. It also paces the waiter's checks of deadlines and peers (each
 * costs a clock read or a syscall): about once a millisecond, moving or not. Not thread safe; one
 * per waiting thread.
 */
final class IdleWaiter {

  private static final long SPIN_NS = 3_000;
  private static final long YIELD_NS = 2_000_000;
  private static final long MIN_PARK_NS = 10_000;
  private static final long MAX_PARK_NS = 1_000_000;
  private static final long CHECK_INTERVAL_NS = 1_000_000;

  private long idleSinceNs;
  private int calls;
  private long parkNs = MIN_PARK_NS;
  private long nextCheckNs;

  /** A new wait begins: spin first; the first check is due a millisecond from now. */
  void start() {
    reset();
    nextCheckNs = System.nanoTime() + CHECK_INTERVAL_NS;
  }

  /** Waits a little, longer the longer nothing moved; true when a check is due. */
  boolean idle() {
    long now = System.nanoTime();
    if (calls++ == 0) {
      idleSinceNs = now;
      Thread.onSpinWait();
    } else if (now - idleSinceNs < SPIN_NS) {
      Thread.onSpinWait();
    } else if (now - idleSinceNs < YIELD_NS) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(parkNs);
      parkNs = Math.min(MAX_PARK_NS, parkNs * 2);
    }
    if (now - nextCheckNs < 0) {
      return false;
    }
    nextCheckNs = now + CHECK_INTERVAL_NS;
    return true;
  }

  /** Something moved: spin again (the checks keep their pace). */
  void reset() {
    calls = 0;
    parkNs = MIN_PARK_NS;
  }
}
