package dev.ddp4j.runtime.join;

import dev.ddp4j.runtime.nd4jcuda.NdCollectives;
import java.time.Duration;

/**
 * The counts every rank needs about each step, summed over the ranks in one all-reduce of four
 * longs: the step's examples (the divisor of the mean gradient), how many ranks train data in it
 * (the divisor of averaged ranges), how many ranks have a batch after it (whether the epoch goes
 * on), and how many ranks cannot replay a step under join.
 *
 * <p>Step k's count is started before step k's compute, so it is issued ahead of step k's bucket
 * all-reduces; collectives of a group complete in issue order, so by the time the training thread
 * needs it (after backward, or after the step) it is done, and the only blocking round trip of an
 * epoch is the first one, which asks whether every rank has a first batch ({@link #announce}). The
 * iterator is only asked {@code hasNext()} ahead, never {@code next()}: DL4J's asynchronous
 * iterators may reuse a batch's memory once the next one is taken.
 *
 * <pre>
 *   epoch:  announce(has 0) ══ wait ══▶ start(ex 0, has 1) ─ step 0 ─ start(ex 1, has 2) ─ step 1 ...
 *   group:                      count 0 ═╗ buckets 0 ═══╗ count 1 ═╗ buckets 1 ═══╗
 * </pre>
 *
 * Not thread safe: driven by the training thread.
 */
public final class StepCounts {

  private static final int EXAMPLES = 0;
  private static final int TRAINING = 1;
  private static final int WITH_NEXT = 2;
  private static final int UNABLE = 3;

  private final NdCollectives collectives;
  private final Duration timeout;
  // The count in flight, or null once its sums are in {@link #sums}.
  private NdCollectives.Sum pending;
  private long[] sums = new long[4];
  // Times the training thread blocked on a count: each announce, and each started count not yet
  // complete when its sums were needed.
  private long blockingWaits;

  /**
   * @param timeout how long a wait for a count may take before it fails naming the missing ranks
   */
  public StepCounts(NdCollectives collectives, Duration timeout) {
    this.collectives = collectives;
    this.timeout = timeout;
  }

  /**
   * The epoch's first, blocking round trip: whether this rank has a first batch, and whether it
   * could not replay a step if it has none (it never trained a batch to replay). Afterwards {@link
   * #ranksWithNext()} says how many ranks have a first batch.
   */
  public void announce(boolean hasFirst, boolean unableToReplay) {
    requireNonePending();
    blockingWaits++;
    sums = collectives.sum(new long[] {0, 0, hasFirst ? 1 : 0, unableToReplay ? 1 : 0});
  }

  /**
   * Starts one step's count, before the step's compute: {@code examples} this rank trains in it (0
   * for a replayed step), whether it trains data at all, and whether it has a batch after it.
   */
  public void start(long examples, boolean training, boolean hasNext) {
    requireNonePending();
    pending = collectives.startSum(new long[] {examples, training ? 1 : 0, hasNext ? 1 : 0, 0});
  }

  private void requireNonePending() {
    if (pending != null) {
      throw new IllegalStateException("a step count was started before the last one was awaited");
    }
  }

  /** The current step's examples over all ranks (waits for its count where still in flight). */
  public long examples() {
    return sums()[EXAMPLES];
  }

  /** How many ranks train data in the current step (the others replay it under join). */
  public long trainingRanks() {
    return sums()[TRAINING];
  }

  /** How many ranks have a batch after the current step (after {@link #announce}: a first one). */
  public long ranksWithNext() {
    return sums()[WITH_NEXT];
  }

  /** How many ranks said at {@link #announce} that they cannot replay a step. */
  public long ranksUnableToReplay() {
    return sums()[UNABLE];
  }

  /**
   * Times the training thread blocked on a count since creation: one per epoch ({@link #announce})
   * plus every started count that was not complete when it was needed.
   */
  public long blockingWaits() {
    return blockingWaits;
  }

  private long[] sums() {
    if (pending != null) {
      if (!pending.isCompleted()) {
        blockingWaits++;
      }
      long[] done = pending.await(timeout); // a timeout names the missing ranks; retry waits again
      pending = null;
      sums = done;
    }
    return sums;
  }
}
