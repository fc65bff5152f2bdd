package dev.ddp4j.spi;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Work;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A {@link Work} that a backend completes from its progress thread with {@link #complete()} or
 * {@link #fail(Throwable)}. Timeouts name the collective, its sequence number and the ranks the
 * backend reports as missing at that moment.
 */
public class FutureWork implements Work {

  private final CompletableFuture<Void> future = new CompletableFuture<>();
  private final long sequenceNumber;
  private final String description;
  private final Duration defaultTimeout;
  private final Supplier<List<Integer>> missingRanks;

  /**
   * @param sequenceNumber the collective's per-group sequence number
   * @param description what it is, e.g. {@code allReduce(4096 float32, SUM)}
   * @param defaultTimeout what {@link #await()} waits
   * @param missingRanks asked on timeout: the ranks that have not arrived (empty if unknown)
   */
  public FutureWork(
      long sequenceNumber,
      String description,
      Duration defaultTimeout,
      Supplier<List<Integer>> missingRanks) {
    this.sequenceNumber = sequenceNumber;
    this.description = description;
    this.defaultTimeout = defaultTimeout;
    this.missingRanks = missingRanks;
  }

  /**
   * A work that is already complete: for collectives with nothing to do (one rank, zero elements).
   */
  public static FutureWork completed(long sequenceNumber, String description) {
    FutureWork w = new FutureWork(sequenceNumber, description, Duration.ZERO, List::of);
    w.complete();
    return w;
  }

  public void complete() {
    future.complete(null);
  }

  public void fail(Throwable error) {
    future.completeExceptionally(error);
  }

  @Override
  public void await(Duration timeout) {
    try {
      future.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      List<Integer> missing = missingRanks.get();
      throw new DdpTimeoutException(
          description
              + " #"
              + sequenceNumber
              + " did not finish within "
              + formatSeconds(timeout)
              + (missing.isEmpty() ? "" : "; ranks that never arrived: " + missing),
          missing);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof DdpException) {
        throw (DdpException) cause;
      }
      throw new DdpException(description + " #" + sequenceNumber + " failed: " + cause, cause);
    } catch (CancellationException e) {
      throw new DdpException(description + " #" + sequenceNumber + " was cancelled", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DdpException(
          description + " #" + sequenceNumber + ": interrupted while waiting", e);
    }
  }

  private static String formatSeconds(Duration d) {
    double s = d.toNanos() / 1e9;
    return s == Math.rint(s) ? String.format("%.0f s", s) : String.format("%.3f s", s);
  }

  @Override
  public void await() {
    await(defaultTimeout);
  }

  @Override
  public boolean isCompleted() {
    return future.isDone();
  }

  @Override
  public boolean isSuccess() {
    return future.isDone() && !future.isCompletedExceptionally();
  }

  @Override
  public long sequenceNumber() {
    return sequenceNumber;
  }

  @Override
  public CompletableFuture<Void> toCompletableFuture() {
    return future.thenApply(v -> v);
  }

  @Override
  public String toString() {
    return description
        + " #"
        + sequenceNumber
        + (isCompleted() ? (isSuccess() ? " done" : " failed") : " pending");
  }
}
