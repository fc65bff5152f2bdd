package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DdpException;
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
 * cached, so a recycled event never makes a finished work look pending again. Shared by the cuda
 * and nccl backends.
 */
public final class CudaWork implements Work {

  /**
   * Where a group can fail all its pending collectives at once (nccl: after {@code ncclCommAbort}):
   * null while the group is healthy, else the error every work not yet seen complete fails with.
   */
  public interface GroupFailure {
    DdpException failure();
  }

  private static final long GROUP_VERDICT_GRACE_NS = 10_000_000_000L;

  private final long sequenceNumber;
  private final Supplier<String> describe;
  private final Duration defaultTimeout;
  private final CUcontext context;
  private final EventPool pool;
  private final GroupFailure groupFailure;

  /** When this work was made, right after its collective was queued. */
  private final long issuedNs = System.nanoTime();

  private CUevent event;
  private boolean done;
  private DdpException error;
  private CompletableFuture<Void> future;

  /**
   * A work complete when {@code event} (taken from {@code pool}, recorded after the collective)
   * fires, or failed once {@code groupFailure} (may be null) reports an error.
   */
  public CudaWork(
      long sequenceNumber,
      Supplier<String> describe,
      Duration defaultTimeout,
      CUcontext context,
      EventPool pool,
      CUevent event,
      GroupFailure groupFailure) {
    this.sequenceNumber = sequenceNumber;
    this.describe = describe;
    this.defaultTimeout = defaultTimeout;
    this.context = context;
    this.pool = pool;
    this.event = event;
    this.groupFailure = groupFailure;
  }

  /** Asks the driver once; true once the collective finished, successfully or not. */
  public synchronized boolean poll() {
    if (done) {
      return true;
    }
    DdpException failed = groupFailure == null ? null : groupFailure.failure();
    if (failed != null) {
      // An aborted communicator's kernels end early and the event fires as if they had finished:
      // a work not seen complete before the failure has no valid result.
      error = failed;
      return markDone();
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
    return markDone();
  }

  /** Returns the event to its pool and completes a waiting future; true, for poll's answer. */
  private boolean markDone() {
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
        if (groupFailure != null && awaitGroupVerdict()) {
          break;
        }
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

  /**
   * Past the group's own deadline for this work (its timeout since the collective was queued), the
   * group's watchdog is about to fail it with a better message (who is missing): gives it a few
   * seconds to. True if the work finished meanwhile.
   */
  private boolean awaitGroupVerdict() {
    if (System.nanoTime() - (issuedNs + defaultTimeout.toNanos()) < 0) {
      return false; // a short wait of the caller's: the collective may still finish
    }
    long graceEndNs = System.nanoTime() + GROUP_VERDICT_GRACE_NS;
    while (System.nanoTime() - graceEndNs < 0) {
      if (poll()) {
        return true;
      }
      LockSupport.parkNanos(1_000_000);
    }
    return false;
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

  /** What the collective is, e.g. {@code allReduce(4096 FLOAT32, SUM)}. */
  public String what() {
    return describe.get();
  }

  @Override
  public String toString() {
    return describe.get() + " #" + sequenceNumber + (done ? " done" : " pending");
  }

  /** Makes {@code stream} wait for this collective unless it already finished. */
  public synchronized void orderBefore(jcuda.driver.CUstream stream) {
    if (!done) {
      Cu.check(JCudaDriver.cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
    }
  }
}
