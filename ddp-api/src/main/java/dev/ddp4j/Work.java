package dev.ddp4j;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The handle of a collective that was started asynchronously. A collective is queued when its call
 * returns; {@link #await(Duration)} blocks until it has finished, failed, or the timeout passed.
 * Collectives of one {@link ProcessGroup} complete in the order they were issued.
 *
 * <p>The buffers passed to the collective must not be touched until the work is complete (for
 * device buffers: until work queued after it on the same stream runs, or {@code await} returns).
 */
public interface Work {

  /**
   * Blocks until the collective completed.
   *
   * @throws DdpTimeoutException if it has not finished within {@code timeout}; the message names
   *     the collective, its sequence number and, where known, the ranks that never arrived. The
   *     collective keeps running: a later {@code await} may still succeed.
   * @throws DdpException if the collective failed (the cause is the backend's error)
   */
  void await(Duration timeout);

  /** {@link #await(Duration)} with the process group's default timeout. */
  void await();

  /** True once the collective finished, successfully or not. Never blocks. */
  boolean isCompleted();

  /** True once the collective finished without error. Never blocks. */
  boolean isSuccess();

  /** The per-group sequence number of this collective, counting from 0, the same on every rank. */
  long sequenceNumber();

  /** A future completed when the collective finishes (exceptionally with its error). */
  CompletableFuture<Void> toCompletableFuture();
}
