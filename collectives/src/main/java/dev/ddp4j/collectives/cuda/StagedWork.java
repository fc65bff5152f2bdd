package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.CudaWork;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A host-staged collective: its host stage (the staging thread's cpu collectives, chunk by chunk)
 * and its device stage (the copies, joined into the caller's stream, then a CUDA event there). It
 * completes when the event fires; it fails with the host stage's error, which names the ranks that
 * never arrived when a peer is missing. The host stage always releases its chunks, failed or not,
 * so the caller's stream never stays blocked on a flag.
 */
final class StagedWork implements Work {

  private final long sequenceNumber;
  private final String what;
  private final Duration defaultTimeout;
  private final int chunks;
  private final CompletableFuture<Void> hostDone = new CompletableFuture<>();
  private volatile CudaWork device;
  private volatile Throwable error;
  private volatile int chunksDone; // written under this object's lock (lanes finish chunks)

  /** The cpu collective of the chunk now in the host stage, or null. */
  volatile Work current;

  /** True while the staging thread waits for this collective's chunk to reach host memory. */
  volatile boolean waitingForDevice;

  StagedWork(long sequenceNumber, String what, Duration defaultTimeout, int chunks) {
    this.sequenceNumber = sequenceNumber;
    this.what = what;
    this.defaultTimeout = defaultTimeout;
    this.chunks = chunks;
    if (chunks == 0) {
      hostDone.complete(null);
    }
  }

  String what() {
    return what;
  }

  void attach(CudaWork deviceWork) {
    this.device = deviceWork;
  }

  boolean failed() {
    return error != null;
  }

  /** The host stage's error (a chunk failed), or null. */
  DdpException hostFailure() {
    Throwable e = error;
    return e == null ? null : wrap(e);
  }

  /** True once every chunk left the host stage. */
  boolean hostFinished() {
    return hostDone.isDone();
  }

  /** Records a chunk's failure ahead of {@link #chunkDone} (the first one wins). */
  synchronized void noteFailure(Throwable failure) {
    if (error == null) {
      error = failure;
    }
  }

  /** The staging thread finished one chunk (run, skipped after a failure, or failed). */
  synchronized void chunkDone(Throwable failure) {
    if (failure != null && error == null) {
      error = failure;
    }
    if (++chunksDone == chunks) {
      if (error == null) {
        hostDone.complete(null);
      } else {
        hostDone.completeExceptionally(wrap(error));
      }
    }
  }

  private DdpException wrap(Throwable e) {
    String head = what + " #" + sequenceNumber + " failed in its host stage: ";
    if (e instanceof DdpTimeoutException t) {
      DdpTimeoutException out = new DdpTimeoutException(head + t.getMessage(), t.missingRanks());
      out.initCause(t);
      return out;
    }
    return new DdpException(head + e.getMessage(), e);
  }

  @Override
  public void await(Duration timeout) {
    long deadlineNs = System.nanoTime() + Math.max(0, timeout.toNanos());
    try {
      hostDone.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw stuck(timeout);
    } catch (ExecutionException e) {
      // The host stage released every chunk: the device stage ends soon; let it, so the caller's
      // buffers are no longer being written when this throws.
      device.await(Duration.ofNanos(Math.max(deadlineNs - System.nanoTime(), 1_000_000_000L)));
      throw (DdpException) e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DdpException(what + " #" + sequenceNumber + ": interrupted while waiting", e);
    }
    device.await(Duration.ofNanos(Math.max(0, deadlineNs - System.nanoTime())));
  }

  /** A timeout that says where the collective is stuck and, if a peer is missing, which. */
  private DdpTimeoutException stuck(Duration timeout) {
    String head =
        what
            + " #"
            + sequenceNumber
            + " did not finish within "
            + timeout.toSeconds()
            + " s (host stage, chunk "
            + Math.min(chunksDone + 1, chunks)
            + " of "
            + chunks
            + "): ";
    Work w = current;
    if (w != null) {
      try {
        w.await(Duration.ZERO);
      } catch (DdpTimeoutException e) {
        DdpTimeoutException out =
            new DdpTimeoutException(
                head
                    + (e.missingRanks().isEmpty()
                        ? "the host collective has not finished"
                        : "ranks that never arrived: " + e.missingRanks()),
                e.missingRanks());
        out.initCause(e);
        return out;
      } catch (RuntimeException e) {
        return new DdpTimeoutException(head + e.getMessage(), List.of());
      }
    }
    if (waitingForDevice) {
      return new DdpTimeoutException(
          head
              + "this rank's GPU has not copied the chunk to host memory yet (work queued on the"
              + " stream before the collective has not finished)",
          List.of());
    }
    return new DdpTimeoutException(head + "queued behind this group's earlier collectives");
  }

  @Override
  public void await() {
    await(defaultTimeout);
  }

  @Override
  public boolean isCompleted() {
    return hostDone.isDone() && device.isCompleted();
  }

  @Override
  public boolean isSuccess() {
    return isCompleted() && !hostDone.isCompletedExceptionally() && device.isSuccess();
  }

  @Override
  public long sequenceNumber() {
    return sequenceNumber;
  }

  @Override
  public CompletableFuture<Void> toCompletableFuture() {
    CudaWork d = device;
    return hostDone
        .handle((v, e) -> e)
        .thenCompose(
            e ->
                d.toCompletableFuture()
                    .thenRun(
                        () -> {
                          if (e != null) {
                            throw (RuntimeException)
                                (e instanceof java.util.concurrent.CompletionException
                                    ? e.getCause()
                                    : e);
                          }
                        }));
  }

  /** Makes {@code stream} wait for this collective's device stage. */
  void orderBefore(jcuda.driver.CUstream stream) {
    device.orderBefore(stream);
  }

  @Override
  public String toString() {
    return what + " #" + sequenceNumber + (isCompleted() ? " done" : " pending");
  }
}
