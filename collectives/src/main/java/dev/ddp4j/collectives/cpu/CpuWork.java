package dev.ddp4j.collectives.cpu;

import dev.ddp4j.spi.FutureWork;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * A queued collective of the cpu group: what to run, and the {@link FutureWork} it completes.
 * {@link #await} spins briefly before blocking, because a small collective finishes in microseconds
 * and waking a parked thread costs more than that.
 */
final class CpuWork extends FutureWork {

  private static final long SPIN_NS = 50_000;

  final Runnable body;

  /** When it was queued: the progress thread leaves fresh work to a caller that awaits it. */
  long queuedNs;

  private final WorkQueue queue;
  private final Duration groupTimeout;

  CpuWork(
      long sequence,
      String what,
      Duration timeout,
      Supplier<List<Integer>> missing,
      Runnable body,
      WorkQueue queue) {
    super(sequence, what, timeout, missing);
    this.body = body;
    this.queue = queue;
    this.groupTimeout = timeout;
  }

  @Override
  public void await(Duration timeout) {
    // Run the queue here when nobody else does (the collective enforces the group's timeout
    // itself, so only an await at least that patient may do it).
    if (!isCompleted() && timeout.compareTo(groupTimeout) >= 0 && queue.helpUntil(this)) {
      super.await(timeout);
      return;
    }
    if (!isCompleted()) {
      long until = System.nanoTime() + Math.min(SPIN_NS, timeout.toNanos());
      int spins = 0;
      while (!isCompleted() && System.nanoTime() - until < 0) {
        if (++spins < 200) {
          Thread.onSpinWait();
        } else {
          Thread.yield(); // on few cores, let the progress thread run
        }
      }
    }
    super.await(timeout);
  }
}
