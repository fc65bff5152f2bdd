package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Work;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import jcuda.driver.CUcontext;
import jcuda.driver.CUevent;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * A collective queued on a CUDA stream, complete when the event recorded after it has fired. The
 * event goes back to the group's pool as soon as completion is observed; from then on the answer is
 * cached, so a recycled event never makes a finished work look pending again.
 */
final class CudaWork implements Work {

  private final long sequenceNumber;
  private final Supplier<String> describe;
  private final Duration defaultTimeout;
  private final CUcontext context;
  private final EventPool pool;
  private CUevent event;
  private boolean done;
  private CudaException error;
  private CompletableFuture<Void> future;

  CudaWork(
      long sequenceNumber,
      Supplier<String> describe,
      Duration defaultTimeout,
      CUcontext context,
      EventPool pool,
      CUevent event) {
    this.sequenceNumber = sequenceNumber;
    this.describe = describe;
    this.defaultTimeout = defaultTimeout;
    this.context = context;
    this.pool = pool;
    this.event = event;
  }

  /** Asks the driver once; true once the collective finished, successfully or not. */
  synchronized boolean poll() {
    if (done) {
      return true;
    }
    JCudaDriver.cuCtxSetCurrent(context);
    int rc = JCudaDriver.cuEventQuery(event);
    if (rc == CUresult.CUDA_ERROR_NOT_READY) {
      return false;
    }
    if (rc != CUresult.CUDA_SUCCESS) {
      error =
          new CudaException(
              describe.get()
                  + " #"
                  + sequenceNumber
                  + " failed on the GPU: "
                  + CUresult.stringFor(rc)
                  + " (a peer that stopped answering makes the kernel trap after the group's"
                  + " timeout)",
              rc);
    }
    done = true;
    pool.release(event);
    event = null;
    if (future != null) {
      finish(future);
    }
    return true;
  }

  private void finish(CompletableFuture<Void> f) {
    if (error == null) {
      f.complete(null);
    } else {
      f.completeExceptionally(error);
    }
  }

  @Override
  public void await(Duration timeout) {
    long deadlineNs = System.nanoTime() + Math.max(0, timeout.toNanos());
    long parkNs = 1_000;
    while (!poll()) {
      if (System.nanoTime() - deadlineNs > 0) {
        throw new DdpTimeoutException(
            describe.get() + " #" + sequenceNumber + " did not finish within " + timeout,
            List.of());
      }
      LockSupport.parkNanos(parkNs);
      parkNs = Math.min(parkNs * 2, 200_000);
    }
    synchronized (this) {
      if (error != null) {
        throw error;
      }
    }
  }

  @Override
  public void await() {
    await(defaultTimeout);
  }

  @Override
  public boolean isCompleted() {
    return poll();
  }

  @Override
  public synchronized boolean isSuccess() {
    return poll() && error == null;
  }

  @Override
  public long sequenceNumber() {
    return sequenceNumber;
  }

  @Override
  public synchronized CompletableFuture<Void> toCompletableFuture() {
    if (future == null) {
      future = new CompletableFuture<>();
      if (done) {
        finish(future);
      } else {
        ProgressThread.watch(this);
      }
    }
    return future.thenApply(v -> v);
  }

  @Override
  public String toString() {
    return describe.get() + " #" + sequenceNumber + (done ? " done" : " pending");
  }

  /** Makes {@code stream} wait for this collective unless it already finished. */
  synchronized void orderBefore(jcuda.driver.CUstream stream) {
    if (!done) {
      Cu.check(JCudaDriver.cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
    }
  }
}
