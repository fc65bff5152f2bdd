package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.Work;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A collective on the host copy of an array ND4J keeps on the GPU (ND4J's CUDA backend, {@code cpu}
 * group): once a wait saw it complete, the host copy is marked as the newest, so ND4J's next kernel
 * on the array copies the sum to the device first. The training thread marks it (ND4J's allocator
 * is not to be touched from the group's threads).
 */
final class HostStagedWork implements Work {

  private final Work inner;
  private final INDArray array;

  HostStagedWork(Work inner, INDArray array) {
    this.inner = inner;
    this.array = array;
  }

  @Override
  public void await(Duration timeout) {
    inner.await(timeout);
    Nd4j.getAffinityManager().tagLocation(array, AffinityManager.Location.HOST);
  }

  @Override
  public void await() {
    inner.await();
    Nd4j.getAffinityManager().tagLocation(array, AffinityManager.Location.HOST);
  }

  @Override
  public boolean isCompleted() {
    return inner.isCompleted();
  }

  @Override
  public boolean isSuccess() {
    return inner.isSuccess();
  }

  @Override
  public long sequenceNumber() {
    return inner.sequenceNumber();
  }

  @Override
  public CompletableFuture<Void> toCompletableFuture() {
    return inner.toCompletableFuture();
  }
}
