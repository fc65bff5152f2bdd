package dev.ddp4j.runtime.bucket;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.trace.Timeline;
import java.time.Duration;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The bucket engine of one model: during backward it is told which layers' gradients are final and
 * starts each bucket's all-reduce as soon as the bucket is complete, in bucket order (the same on
 * every rank, so every rank issues the same sequence of collectives); at the end of backward it
 * starts what is left and waits for all.
 *
 * <pre>
 *   backward:  layer 3 ──▶ layer 2 ──▶ layer 1 ──▶ layer 0 ──▶ finish()
 *   comm:            bucket 0 ═════╗  bucket 1 ═══════╗      bucket 2 ══╗ wait
 * </pre>
 *
 * With gradient accumulation ({@code noSync} steps before), the accumulated gradient is added into
 * each bucket just before it is sent. Not thread safe: driven by the training thread.
 */
public final class GradientReducer {

  private final ProcessGroup group;
  private final BucketPlan plan;
  private final CommHook hook;
  private final Timeline timeline;
  private final CommHook.Pending[] pending;
  private final INDArray[] bucketViews;
  private final INDArray[] accumulatedViews;
  // The arrays the cached bucket views slice; views are rebuilt only when the model hands out new
  // arrays.
  private INDArray gradientSeen;
  private INDArray accumulatedSeen;
  private boolean addAccumulated;
  private int launched;
  private boolean active;
  private final java.util.concurrent.atomic.AtomicLong commNanos =
      new java.util.concurrent.atomic.AtomicLong();
  private long exposedNanos;

  public GradientReducer(ProcessGroup group, BucketPlan plan, CommHook hook, Timeline timeline) {
    this.group = group;
    this.plan = plan;
    this.hook = hook;
    this.timeline = timeline;
    int n = plan.buckets().size();
    this.pending = new CommHook.Pending[n];
    this.bucketViews = new INDArray[n];
    this.accumulatedViews = new INDArray[n];
  }

  public BucketPlan plan() {
    return plan;
  }

  /**
   * Arms the engine for one synchronised step over {@code gradient} (the model's flat gradient
   * view), adding {@code accumulated} (or nothing, if null) into each bucket before it is sent.
   */
  public void beginStep(INDArray gradient, INDArray accumulated) {
    if (gradient.length() != plan.totalLength()) {
      throw new IllegalStateException(
          "the model's gradient has "
              + gradient.length()
              + " elements but the buckets cover "
              + plan.totalLength());
    }
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      if (gradient != gradientSeen) {
        slice(gradient, bucketViews);
        gradientSeen = gradient;
      }
      if (accumulated != null && accumulated != accumulatedSeen) {
        slice(accumulated, accumulatedViews);
        accumulatedSeen = accumulated;
      }
    }
    addAccumulated = accumulated != null;
    launched = 0;
    active = true;
  }

  private void slice(INDArray flat, INDArray[] views) {
    INDArray vector = flat.reshape(flat.length());
    if (vector.data().address() != flat.data().address()) {
      // A copy would be reduced instead of the model's gradient; DL4J's flat views are contiguous,
      // so this
      // only fails if the model's gradient buffer is not one flat array.
      throw new IllegalStateException(
          "the model's gradient view is not one contiguous flat buffer");
    }
    for (Bucket b : plan.buckets()) {
      views[b.index()] = vector.get(NDArrayIndex.interval(b.offset(), b.end()));
    }
  }

  /**
   * Backward has finished layer {@code layer} and every layer above it: start the buckets now
   * complete.
   */
  public void layerReady(int layer) {
    if (!active) {
      return;
    }
    while (launched < pending.length && plan.buckets().get(launched).firstLayer() >= layer) {
      launch(launched++);
    }
  }

  private void launch(int b) {
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      if (addAccumulated) {
        bucketViews[b].addi(accumulatedViews[b]);
        accumulatedViews[b].assign(0);
      }
      long startNs = System.nanoTime();
      CommHook.Pending p = hook.start(group, bucketViews[b]);
      pending[b] = p;
      p.work()
          .toCompletableFuture()
          .whenComplete((v, e) -> commNanos.addAndGet(System.nanoTime() - startNs));
      if (timeline.enabled()) {
        String name = "allreduce bucket " + b + " (" + bucketViews[b].length() + " elements)";
        p.work()
            .toCompletableFuture()
            .whenComplete((v, e) -> timeline.record(name, Timeline.COMM, startNs));
      }
    }
  }

  /**
   * Starts every bucket not started yet, waits for all (each up to {@code timeout}), and leaves the
   * sum over ranks in the gradient.
   */
  public void finishStep(Duration timeout) {
    if (!active) {
      throw new IllegalStateException("finishStep without beginStep");
    }
    try {
      while (launched < pending.length) {
        launch(launched++);
      }
      long waitNs = System.nanoTime();
      try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
        for (int b = 0; b < pending.length; b++) {
          pending[b].work().await(timeout);
          pending[b].finish();
          pending[b] = null;
        }
      }
      exposedNanos += System.nanoTime() - waitNs;
      timeline.record("wait for gradients", Timeline.COMPUTE, waitNs);
    } finally {
      active = false;
    }
  }

  /**
   * Ends an armed step that saw no backward (DdpModel arms one after each truncated BPTT segment,
   * in case another follows). A step that launched buckets must end with {@link #finishStep}.
   */
  public void disarm() {
    if (active && launched > 0) {
      throw new IllegalStateException(
          launched
              + " buckets were launched in a step that never reached onGradientCalculation; every"
              + " backward of DdpModel's fit must be followed by DL4J's updater");
    }
    active = false;
  }

  /** Total time buckets spent in flight, launch to completion, over all steps so far. */
  public long commNanos() {
    return commNanos.get();
  }

  /**
   * Total time the training thread waited for buckets after backward, over all steps so far: the
   * part of the communication backward did not hide.
   */
  public long exposedNanos() {
    return exposedNanos;
  }

  /** Whether a step is armed: between {@link #beginStep} and {@link #finishStep}. */
  public boolean active() {
    return active;
  }
}
