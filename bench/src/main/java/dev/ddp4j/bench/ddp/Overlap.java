package dev.ddp4j.bench.ddp;

import dev.ddp4j.runtime.cuda.DeviceTrace;
import java.util.List;

/**
 * What a traced step says about overlap: when backward ran on the compute stream and when the first
 * and last buckets' all-reduces ran on the communication stream, in GPU microseconds.
 */
public record Overlap(
    double backwardStartUs,
    double backwardEndUs,
    double firstBucketStartUs,
    double firstBucketEndUs,
    double lastBucketEndUs) {

  /**
   * Reads spans named {@code backward layer *} and {@code allreduce bucket *} (in bucket order).
   */
  public static Overlap of(List<DeviceTrace.Span> spans) {
    double bwdStart = Double.MAX_VALUE;
    double bwdEnd = 0;
    DeviceTrace.Span first = null;
    double lastEnd = 0;
    for (DeviceTrace.Span s : spans) {
      if (s.track() == DeviceTrace.COMPUTE && s.name().startsWith("backward")) {
        bwdStart = Math.min(bwdStart, s.startUs());
        bwdEnd = Math.max(bwdEnd, s.endUs());
      } else if (s.track() == DeviceTrace.COMM) {
        if (first == null) {
          first = s;
        }
        lastEnd = Math.max(lastEnd, s.endUs());
      }
    }
    if (first == null || bwdEnd == 0) {
      throw new IllegalStateException(
          "the trace has no backward or no all-reduce spans (expected: a traced step with the engine)");
    }
    return new Overlap(bwdStart, bwdEnd, first.startUs(), first.endUs(), lastEnd);
  }

  /** Whether the first bucket's all-reduce started while backward was still running. */
  public boolean firstBucketBeforeBackwardEnds() {
    return firstBucketStartUs < backwardEndUs;
  }
}
