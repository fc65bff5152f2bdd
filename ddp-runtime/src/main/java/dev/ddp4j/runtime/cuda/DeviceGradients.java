package dev.ddp4j.runtime.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.runtime.bucket.Bucket;
import dev.ddp4j.runtime.bucket.BucketPlan;
import dev.ddp4j.runtime.bucket.GradientReducer;
import dev.ddp4j.runtime.bucket.GradientSource;
import dev.ddp4j.runtime.comm.CommHook;

/**
 * The {@link GradientSource} of a flat gradient in device memory, of any producer, without the host
 * in the loop: when the caller has queued a layer's backward on the compute stream and told the
 * engine, every bucket now complete gets its all-reduce queued on the {@link CommStream} behind
 * everything queued so far on the compute stream; {@link #joinConsumer} makes the compute stream
 * wait on the last all-reduce, so the optimizer step queued after {@link
 * GradientReducer#finishStep} reads the reduced gradient. No call blocks the host. The engine over
 * it: {@code new GradientReducer(new DeviceGradients(...), Timeline.disabled())}; closing the
 * engine closes the communication stream.
 *
 * <pre>
 *   compute: bwd L3 ─rec e0─ bwd L2 ── bwd L1 ─rec e1─ bwd L0 ─rec e2─ wait(done) ─ optimizer
 *   comm:          wait e0 ═ allreduce b0 ═ wait e1 ═ allreduce b1 ═ wait e2 ═ b2 ═ rec done
 * </pre>
 *
 * By default the communication stream has the context's highest priority, so a bucket's kernels are
 * scheduled ahead of backward kernels queued later; {@link CommStream.Priority#NORMAL} gives it the
 * compute stream's default priority instead. Create it (and use it) on the training thread with the
 * group's context current. Each bucket's {@link Work} is kept until the engine's {@code awaitStep}
 * or the bucket's next launch, so a failure of the last step's collectives surfaces there.
 */
public final class DeviceGradients implements GradientSource {

  private final ProcessGroup group;
  private final BucketPlan plan;
  private final DeviceBuffer gradient;
  private final ReduceOp op;
  private final long compute;
  private final CommStream comm;
  private final DeviceTrace trace;

  /**
   * @param group the cuda (or nccl) process group of this rank's GPU
   * @param plan the buckets over {@code gradient}'s elements
   * @param gradient the flat gradient; its stream is the compute stream backward runs on
   * @param op SUM, or AVG for DDP's mean over ranks
   * @param trace GPU timestamps of each bucket's all-reduce, or {@link DeviceTrace#disabled()}
   * @param priority the communication stream's priority
   */
  public DeviceGradients(
      ProcessGroup group,
      BucketPlan plan,
      DeviceBuffer gradient,
      ReduceOp op,
      DeviceTrace trace,
      CommStream.Priority priority) {
    if (gradient.count() != plan.totalLength()) {
      throw new IllegalArgumentException(
          "the device gradient has "
              + gradient.count()
              + " elements but the buckets cover "
              + plan.totalLength()
              + " (expected: one plan per flat gradient)");
    }
    this.group = group;
    this.plan = plan;
    this.gradient = gradient;
    this.op = op;
    this.trace = trace;
    this.compute = gradient.stream();
    this.comm = new CommStream(priority);
  }

  @Override
  public BucketPlan plan() {
    return plan;
  }

  @Override
  public CommHook.Pending start(Bucket bucket) {
    comm.waitFor(compute);
    int span = trace.beginBucket(bucket.index(), Cu.stream(comm.handle()));
    Work w =
        group.allReduce(
            gradient.slice(bucket.offset(), bucket.length()).onStream(comm.handle()), op);
    trace.end(span, Cu.stream(comm.handle()));
    return CommHook.Pending.of(w);
  }

  @Override
  public void joinConsumer() {
    comm.joinInto(compute);
  }

  @Override
  public boolean timedOnHost() {
    return false;
  }

  /** Waits for the communication stream's work, then frees the stream. */
  @Override
  public void close() {
    comm.close();
  }
}
