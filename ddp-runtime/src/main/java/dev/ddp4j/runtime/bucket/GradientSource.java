package dev.ddp4j.runtime.bucket;

import dev.ddp4j.runtime.comm.CommHook;

/**
 * Where the {@link GradientReducer} finds a flat gradient and how it starts one bucket's reduction
 * there: the model's ND4J array ({@link Nd4jGradients}) or a device buffer of any producer ({@code
 * dev.ddp4j.runtime.cuda.DeviceGradients}). The engine decides when; a source decides how.
 * Implementations must not make the engine load ND4J: the GPU bundle runs the device source without
 * it.
 */
public interface GradientSource extends AutoCloseable {

  /** The buckets over this source's gradient. */
  BucketPlan plan();

  /**
   * Starts summing (or averaging) {@code bucket} over every rank, after whatever produced its
   * gradient so far. Called on the training thread, in bucket order, once per bucket and step.
   */
  CommHook.Pending start(Bucket bucket);

  /**
   * Every bucket of the step has been started: makes what consumes the gradient next (the
   * optimizer) see the reductions, without blocking the host where that can be done on the GPU.
   * Host memory has nothing to order: there the engine's wait does it.
   */
  void joinConsumer();

  /**
   * Whether the engine times each reduction on the host clock, from its start to its completion.
   * False for device memory: a device reduction is queued, not run, when it starts, and is timed on
   * the GPU instead ({@code DeviceTrace}); watching its completion would poll its event from a
   * second thread.
   */
  boolean timedOnHost();

  /** Frees what the source holds (a device source's stream); the gradient stays the owner's. */
  @Override
  void close();
}
