package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Work;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The work of a point-to-point message: first its lane queues it on the GPU (once the peer's side
 * of the message is known, {@link PointToPoint}), which yields the {@link CudaWork} of its event;
 * complete when that is.
 */
final class QueuedWork implements Work {

  private final long sequenceNumber;
  private final Supplier<String> describe;
  private final Duration defaultTimeout;
  private final int peer;
  private final CompletableFuture<CudaWork> queued;

  QueuedWork(
      long sequenceNumber,
      Supplier<String> describe,
      Duration defaultTimeout,
      int peer,
      CompletableFuture<CudaWork> queued) {
    this.sequenceNumber = sequenceNumber;
    this.describe = describe;
    this.defaultTimeout = defaultTimeout;
    this.peer = peer;
    this.queued = queued;
  }

  @Override
  public void await(Duration timeout) {
    long deadlineNs = System.nanoTime() + Math.max(0, timeout.toNanos());
    CudaWork w;
    try {
      w = queued.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new DdpTimeoutException(
          describe.get()
              + " #"
              + sequenceNumber
              + " did not finish within "
              + timeout
              + ": rank "
              + peer
              + " has not posted the matching message yet",
          List.of(peer));
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DdpException(describe.get() + " #" + sequenceNumber + ": interrupted", e);
    }
    w.await(Duration.ofNanos(Math.max(0, deadlineNs - System.nanoTime())));
  }

  private DdpException failure(Throwable cause) {
    if (cause instanceof DdpException d) {
      return d;
    }
    return new DdpException(describe.get() + " #" + sequenceNumber + " failed: " + cause, cause);
  }

  @Override
  public void await() {
    await(defaultTimeout);
  }

  @Override
  public boolean isCompleted() {
    if (queued.isCompletedExceptionally()) {
      return true;
    }
    CudaWork w = queued.getNow(null);
    return w != null && w.poll();
  }

  @Override
  public boolean isSuccess() {
    if (queued.isCompletedExceptionally()) {
      return false;
    }
    CudaWork w = queued.getNow(null);
    return w != null && w.isSuccess();
  }

  @Override
  public long sequenceNumber() {
    return sequenceNumber;
  }

  @Override
  public CompletableFuture<Void> toCompletableFuture() {
    return queued.thenCompose(CudaWork::toCompletableFuture);
  }

  /** True if the lane failed the message before queuing anything on the GPU. */
  boolean failedBeforeTheGpu() {
    return queued.isCompletedExceptionally();
  }

  /** The GPU's work once queued, or null (not yet, or it failed before). */
  CudaWork queuedWork() {
    return queued.isDone() && !queued.isCompletedExceptionally() ? queued.join() : null;
  }

  @Override
  public String toString() {
    return describe.get() + " #" + sequenceNumber + (isCompleted() ? " done" : " pending");
  }
}
