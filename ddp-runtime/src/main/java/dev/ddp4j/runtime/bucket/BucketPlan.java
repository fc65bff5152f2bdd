package dev.ddp4j.runtime.bucket;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Cuts a flat gradient into buckets the way PyTorch DDP does: walking the layers from the last to
 * the first (the order backward produces them), whole layers are added to the current bucket until
 * it would exceed its cap; the first bucket has a small cap (1 MiB by default) so that
 * communication starts as early as possible, the others a large one (25 MiB) so that each message
 * is big enough to run at full bandwidth. A layer larger than the cap gets a bucket of its own.
 */
public final class BucketPlan {

  private final List<Bucket> buckets;
  private final long totalLength;

  private BucketPlan(List<Bucket> buckets, long totalLength) {
    this.buckets = List.copyOf(buckets);
    this.totalLength = totalLength;
  }

  /**
   * Plans buckets over {@code ranges}, which must tile {@code [0, total)} without gaps or overlaps.
   *
   * @param elementBytes bytes per gradient element (4 for float)
   */
  public static BucketPlan of(
      List<ParamRange> ranges, int elementBytes, long firstBucketBytes, long bucketCapBytes) {
    if (firstBucketBytes < 1 || bucketCapBytes < 1) {
      throw new IllegalArgumentException(
          "bucket caps "
              + firstBucketBytes
              + " / "
              + bucketCapBytes
              + " bytes (expected: both >= 1; defaults 1 MiB and 25 MiB)");
    }
    List<ParamRange> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparingLong(ParamRange::offset));
    long expect = 0;
    for (ParamRange r : sorted) {
      if (r.offset() != expect) {
        throw new IllegalArgumentException(
            r.name()
                + " starts at element "
                + r.offset()
                + " but the previous layer ends at "
                + expect
                + " (expected: parameter ranges that tile the flat buffer)");
      }
      expect = r.end();
    }
    List<Bucket> out = new ArrayList<>();
    long end = expect;
    long start = end;
    int firstLayer = Integer.MAX_VALUE;
    for (int i = sorted.size() - 1; i >= 0; i--) {
      ParamRange r = sorted.get(i);
      long cap = out.isEmpty() ? firstBucketBytes : bucketCapBytes;
      if (start < end && (end - r.offset()) * elementBytes > cap) {
        out.add(new Bucket(out.size(), start, end - start, firstLayer));
        end = start;
        firstLayer = Integer.MAX_VALUE;
      }
      start = r.offset();
      firstLayer = Math.min(firstLayer, r.layer());
    }
    if (start < end) {
      out.add(new Bucket(out.size(), start, end - start, firstLayer));
    }
    return new BucketPlan(out, expect);
  }

  /** Buckets in launch order. */
  public List<Bucket> buckets() {
    return buckets;
  }

  /** Elements in the flat gradient. */
  public long totalLength() {
    return totalLength;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(buckets.size() + " buckets:");
    for (Bucket b : buckets) {
      sb.append(" #")
          .append(b.index())
          .append(" [")
          .append(b.offset())
          .append(',')
          .append(b.end())
          .append(')');
    }
    return sb.toString();
  }
}
