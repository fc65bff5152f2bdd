package dev.ddp4j.runtime.bucket;

import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.runtime.comm.CommHook;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link GradientSource} over a plain {@code float[]} that sums each bucket in place with the
 * group's all-reduce and records which buckets it was asked to start, in order: the engine's tests
 * drive real collectives through it without ND4J (so it also runs where ND4J is absent, as on the
 * GPU bundle).
 */
public final class FloatArrayGradients implements GradientSource {

  private final ProcessGroup group;
  private final BucketPlan plan;
  private final float[] gradient;
  private final List<Integer> started = new ArrayList<>();
  private int joins;
  private boolean closed;

  public FloatArrayGradients(ProcessGroup group, BucketPlan plan, float[] gradient) {
    this.group = group;
    this.plan = plan;
    this.gradient = gradient;
  }

  @Override
  public BucketPlan plan() {
    return plan;
  }

  @Override
  public CommHook.Pending start(Bucket bucket) {
    started.add(bucket.index());
    return CommHook.Pending.of(
        group.allReduce(
            HostBuffer.of(gradient).slice(bucket.offset(), bucket.length()), ReduceOp.SUM));
  }

  @Override
  public void joinConsumer() {
    joins++;
  }

  @Override
  public boolean timedOnHost() {
    return true;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** The buckets started so far, in the order the engine started them. */
  public List<Integer> started() {
    return List.copyOf(started);
  }

  public int joins() {
    return joins;
  }

  public boolean closed() {
    return closed;
  }
}
