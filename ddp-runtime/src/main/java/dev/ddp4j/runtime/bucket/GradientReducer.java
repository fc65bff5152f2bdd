package dev.ddp4j.runtime.bucket;

import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.trace.Timeline;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bucket engine: during backward it is told which layers' gradients are final and starts each
 * bucket's reduction as soon as the bucket is complete, in bucket order (the same on every rank, so
 * every rank issues the same sequence of collectives); at the end of backward it starts what is
 * left, and {@link #awaitStep} waits for all.
 *
 * <pre>
 *   backward:  layer 3 ──▶ layer 2 ──▶ layer 1 ──▶ layer 0 ──▶ finishStep ─ awaitStep
 *   comm:            bucket 0 ═════╗  bucket 1 ═══════╗      bucket 2 ══╗  (wait)
 * </pre>
 *
 * Where the gradient lives is its {@link GradientSource}'s business: the model's ND4J array, whose
 * buckets go through a comm hook and whose updater reads the gradient after the host waited ({@link
 * Nd4jGradients}), or a device buffer, whose buckets are queued on a communication stream and whose
 * optimizer, queued behind {@link #finishStep} on the compute stream, waits on the GPU ({@code
 * DeviceGradients}): there no call blocks the host until {@link #awaitStep}.
 *
 * <p>One step: {@link #beginStep} arms the engine, {@link #layerReady} starts the buckets backward
 * has completed, {@link #finishStep} starts the rest and disarms, {@link #awaitStep} waits for the
 * step's buckets (each up to its timeout; a timed-out wait can be repeated, the collective keeps
 * running) and finishes them (e.g. decompresses). {@link #disarm} ends an armed step that saw no
 * backward. Not thread safe: driven by the training thread.
 */
public final class GradientReducer implements AutoCloseable {

  private final GradientSource source;
  private final BucketPlan plan;
  private final Timeline timeline;
  // The step's reductions in flight, by bucket; null once finished (or before launch).
  private final CommHook.Pending[] pending;
  private int launched;
  private boolean active;
  private final AtomicLong commNanos = new AtomicLong();
  private long exposedNanos;

  /**
   * @param timeline where host-timed reductions and the wait are recorded, or {@link
   *     Timeline#disabled()}
   */
  public GradientReducer(GradientSource source, Timeline timeline) {
    this.source = source;
    this.plan = source.plan();
    this.timeline = timeline;
    this.pending = new CommHook.Pending[plan.buckets().size()];
  }

  public BucketPlan plan() {
    return plan;
  }

  /** Arms the engine for one synchronised step. */
  public void beginStep() {
    launched = 0;
    active = true;
  }

  /**
   * Backward has finished (or, on a GPU, queued) layer {@code layer} and every layer above it:
   * start the buckets now complete.
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
    Bucket bucket = plan.buckets().get(b);
    long startNs = System.nanoTime();
    CommHook.Pending p = source.start(bucket);
    pending[b] = p;
    if (!source.timedOnHost()) {
      return;
    }
    p.work()
        .toCompletableFuture()
        .whenComplete((v, e) -> commNanos.addAndGet(System.nanoTime() - startNs));
    if (timeline.enabled()) {
      String name = "allreduce bucket " + b + " (" + bucket.length() + " elements)";
      p.work()
          .toCompletableFuture()
          .whenComplete((v, e) -> timeline.record(name, Timeline.COMM, startNs));
    }
  }

  /**
   * Starts every bucket not started yet and orders the gradient's consumer after all of them (see
   * {@link GradientSource#joinConsumer}); disarms. Does not wait: {@link #awaitStep} does.
   */
  public void finishStep() {
    if (!active) {
      throw new IllegalStateException("finishStep without beginStep");
    }
    try {
      while (launched < pending.length) {
        launch(launched++);
      }
      source.joinConsumer();
    } finally {
      active = false;
    }
  }

  /**
   * Waits for every bucket of the last finished step (each up to {@code timeout}) and finishes it:
   * afterwards the gradient holds the reduction over ranks, as the host sees it.
   *
   * @throws dev.ddp4j.DdpTimeoutException if a bucket is not done within {@code timeout} (a later
   *     call waits again for it and the ones after it)
   * @throws dev.ddp4j.DdpException if a bucket's collective failed
   */
  public void awaitStep(Duration timeout) {
    if (active) {
      throw new IllegalStateException(
          "awaitStep before finishStep: the step's buckets are not all started");
    }
    long waitNs = System.nanoTime();
    for (int b = 0; b < pending.length; b++) {
      if (pending[b] != null) {
        pending[b].work().await(timeout);
        pending[b].finish();
        pending[b] = null;
      }
    }
    exposedNanos += System.nanoTime() - waitNs;
    timeline.record("wait for gradients", Timeline.COMPUTE, waitNs);
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

  /**
   * Total time host-timed buckets spent in flight, launch to completion, over all steps so far (0
   * for a device source: see {@link GradientSource#timedOnHost}).
   */
  public long commNanos() {
    return commNanos.get();
  }

  /**
   * Total time the training thread waited in {@link #awaitStep}, over all steps so far: the part of
   * the communication backward did not hide.
   */
  public long exposedNanos() {
    return exposedNanos;
  }

  /** Whether a step is armed: between {@link #beginStep} and {@link #finishStep}. */
  public boolean active() {
    return active;
  }

  /** Closes the source (a device source's stream, after its queued work). */
  @Override
  public void close() {
    source.close();
  }
}
