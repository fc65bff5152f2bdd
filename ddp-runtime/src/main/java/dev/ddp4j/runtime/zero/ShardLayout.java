package dev.ddp4j.runtime.zero;

import dev.ddp4j.runtime.bucket.Bucket;
import dev.ddp4j.runtime.bucket.BucketPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * Which elements of the flat gradient (and so of the parameters and the updater state) one rank
 * owns under ZeRO-1. Each bucket of {@code L} elements is cut into {@code N} equal chunks of {@code
 * L / N} elements, rank {@code r} owning chunk {@code r}; the {@code L % N < N} elements left over
 * at the bucket's end (the tail, what a padded reduce-scatter would pad) are owned by every rank:
 *
 * <pre>
 *   bucket b:  | chunk 0 (rank 0) | chunk 1 (rank 1) | chunk 2 (rank 2) | tail |
 *              offset             +c                 +2c                +3c    end
 * </pre>
 *
 * Chunks travel by reduce-scatter and all-gather without copies of the bucket; the tail is
 * all-reduced and updated identically on every rank, so a rank holds updater state for {@code L /
 * N} elements of each bucket plus fewer than {@code N}.
 */
final class ShardLayout {

  /**
   * A range {@code [start, end)} of the flat vector inside bucket {@code bucket}; {@code
   * replicated}: every rank owns it.
   */
  record Interval(int bucket, long start, long end, boolean replicated) {
    long length() {
      return end - start;
    }
  }

  private final BucketPlan plan;
  private final int rank;
  private final int ranks;

  ShardLayout(BucketPlan plan, int rank, int ranks) {
    this.plan = plan;
    this.rank = rank;
    this.ranks = ranks;
  }

  int rank() {
    return rank;
  }

  int ranks() {
    return ranks;
  }

  BucketPlan plan() {
    return plan;
  }

  /** Elements of each rank's chunk of {@code bucket}. */
  long chunk(Bucket bucket) {
    return bucket.length() / ranks;
  }

  /** Elements of {@code bucket} that every rank owns (after the chunks). */
  long tail(Bucket bucket) {
    return bucket.length() - chunk(bucket) * ranks;
  }

  /** This rank's chunk and the tail of every bucket, in bucket order; empty ranges left out. */
  List<Interval> owned() {
    List<Interval> out = new ArrayList<>();
    for (Bucket b : plan.buckets()) {
      long c = chunk(b);
      if (c > 0) {
        out.add(new Interval(b.index(), b.offset() + rank * c, b.offset() + (rank + 1) * c, false));
      }
      if (tail(b) > 0) {
        out.add(new Interval(b.index(), b.offset() + c * ranks, b.end(), true));
      }
    }
    return out;
  }
}
