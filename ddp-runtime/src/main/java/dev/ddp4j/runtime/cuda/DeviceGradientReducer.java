package dev.ddp4j.runtime.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.cuda.Cu;
import dev.ddp4j.runtime.bucket.Bucket;
import dev.ddp4j.runtime.bucket.BucketPlan;
import java.time.Duration;

/**
 * The bucket engine on device memory, {@link dev.ddp4j.runtime.bucket.GradientReducer}'s contract
 * without the host in the loop: a flat device gradient cut into the buckets of a {@link
 * BucketPlan}; when the caller has queued a layer's backward on the compute stream it calls {@link
 * #layerReady}, and every bucket now complete gets its all-reduce queued on the {@link CommStream}
 * behind everything queued so far on the compute stream. {@link #finishStep} queues what is left
 * and makes the compute stream wait on the last all-reduce, so the optimizer step queued after it
 * reads the reduced gradient. No call blocks the host.
 *
 * <pre>
 *   compute: bwd L3 ─rec e0─ bwd L2 ── bwd L1 ─rec e1─ bwd L0 ─rec e2─ wait(done) ─ optimizer
 *   comm:          wait e0 ═ allreduce b0 ═ wait e1 ═ allreduce b1 ═ wait e2 ═ b2 ═ rec done
 * </pre>
 *
 * By default the communication stream has the context's highest priority, so a bucket's kernels are
 * scheduled ahead of backward kernels queued later; {@link CommStream.Priority#NORMAL} gives it the
 * compute stream's default priority instead (bench ddp's {@code --comm-priority} compares both).
 * Not thread safe: driven by the training thread, which has the group's context current. Each
 * bucket's {@link Work} is kept until the next step, so a failure of the collective surfaces in
 * {@link #awaitStep}.
 */
public final class DeviceGradientReducer implements AutoCloseable {

  private final ProcessGroup group;
  private final BucketPlan plan;
  private final DeviceBuffer gradient;
  private final ReduceOp op;
  private final long compute;
  private final CommStream comm;
  private final Work[] works;
  private final DeviceTrace trace;
  private int launched;
  private boolean active;

  /** An engine whose communication stream has the {@link CommStream.Priority#HIGHEST} priority. */
  public DeviceGradientReducer(
      ProcessGroup group, BucketPlan plan, DeviceBuffer gradient, ReduceOp op, DeviceTrace trace) {
    this(group, plan, gradient, op, trace, CommStream.Priority.HIGHEST);
  }

  /**
   * @param group the cuda process group of this rank's GPU
   * @param plan the buckets over {@code gradient}'s elements
   * @param gradient the flat gradient; its stream is the compute stream backward runs on
   * @param op SUM, or AVG for DDP's mean over ranks
   * @param trace GPU timestamps of each bucket's all-reduce, or {@link DeviceTrace#disabled()}
   * @param priority the communication stream's priority
   */
  public DeviceGradientReducer(
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
    this.works = new Work[plan.buckets().size()];
  }

  public BucketPlan plan() {
    return plan;
  }

  /** The communication stream's handle, for callers that queue more work behind the buckets. */
  public long commStream() {
    return comm.handle();
  }

  /** Arms the engine for one synchronised step. */
  public void beginStep() {
    launched = 0;
    active = true;
  }

  /**
   * The backward of layer {@code layer} (and of every layer above it) is queued on the compute
   * stream: queue the buckets now complete.
   */
  public void layerReady(int layer) {
    if (!active) {
      return;
    }
    while (launched < works.length && plan.buckets().get(launched).firstLayer() >= layer) {
      launch(launched++);
    }
  }

  private void launch(int b) {
    Bucket bucket = plan.buckets().get(b);
    comm.waitFor(compute);
    int span = trace.beginBucket(b, Cu.stream(comm.handle()));
    works[b] =
        group.allReduce(
            gradient.slice(bucket.offset(), bucket.length()).onStream(comm.handle()), op);
    trace.end(span, Cu.stream(comm.handle()));
  }

  /**
   * Queues every bucket not queued yet, and makes the compute stream wait for the last all-reduce:
   * work queued on the compute stream from now on sees the reduced gradient. Does not block.
   */
  public void finishStep() {
    if (!active) {
      throw new IllegalStateException("finishStep without beginStep");
    }
    while (launched < works.length) {
      launch(launched++);
    }
    comm.joinInto(compute);
    active = false;
  }

  /** Waits on the host for every bucket of the last step (each up to {@code timeout}). */
  public void awaitStep(Duration timeout) {
    for (Work w : works) {
      if (w != null) {
        w.await(timeout);
      }
    }
  }

  @Override
  public void close() {
    comm.close();
  }
}
