package dev.ddp4j.collectives.cpu;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with a growing pause: an 8-byte collective finishes while spinning
 * (microseconds), and a rank that waits long for a slow peer stops burning its core. Not thread
 * safe; one per waiting thread.
 */
final class IdleWaiter {

  private static final int SPINS = 20_000;
  private static final int YIELDS = 2_000;
  private static final long MIN_PARK_NS = 2_000;
  private static final long MAX_PARK_NS = 500_000;

  private int idles;
  private long parkNs = MIN_PARK_NS;

  void idle() {
    int n = idles++;
    if (n < SPINS) {
      Thread.onSpinWait();
    } else if (n < SPINS + YIELDS) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(parkNs);
      parkNs = Math.min(MAX_PARK_NS, parkNs * 2);
    }
  }

  void reset() {
    idles = 0;
    parkNs = MIN_PARK_NS;
  }
}
