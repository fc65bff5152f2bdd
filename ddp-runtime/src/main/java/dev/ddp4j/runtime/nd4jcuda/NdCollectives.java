package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.runtime.comm.ArrayAllReduce;
import dev.ddp4j.runtime.comm.NdBuffers;
import dev.ddp4j.runtime.cuda.CommStream;
import java.time.Duration;
import java.util.function.Supplier;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DdpModel's collectives on ND4J arrays and small counts, in whatever memory the group takes (see
 * {@link Nd4jDevices} for the four combinations). On the CPU backend with the {@code cpu} group
 * this is exactly what DdpModel did before: host memory in place. As the {@link ArrayAllReduce} of
 * DdpModel's comm hooks, it is the one place that stages arrays through host memory or queues them
 * on a device stream, whichever hook runs.
 */
public final class NdCollectives implements ArrayAllReduce {

  private final ProcessGroup group;

  /** Non-null only for ND4J's CUDA backend with a {@code cuda} or {@code nccl} group. */
  private final Nd4jDevice device;

  private final Nd4jDevices.GradientPath path;

  // Device path only: the stream hooks' all-reduces run on, made on first use (ND4J's context is
  // current then); it lives as long as ND4J's context.
  private CommStream comm;

  private NdCollectives(ProcessGroup group, Nd4jDevices.GradientPath path, Nd4jDevice device) {
    this.group = group;
    this.path = path;
    this.device = device;
  }

  /** Chooses the path for {@code group} and ND4J's current backend ({@link Nd4jDevices#path}). */
  public static NdCollectives of(ProcessGroup group) {
    Nd4jDevices.GradientPath path = Nd4jDevices.path(Nd4jDevices.nd4jOnCuda(), group.backend());
    return new NdCollectives(
        group, path, path == Nd4jDevices.GradientPath.DEVICE ? Nd4jDevices.load() : null);
  }

  /** ND4J on CUDA with a cpu group: buckets go through ND4J's host copies. */
  private boolean stagesOnHost() {
    return path == Nd4jDevices.GradientPath.HOST_STAGED;
  }

  /** The path chosen. */
  public Nd4jDevices.GradientPath path() {
    return path;
  }

  /**
   * Where the model computes and how its gradients travel, in words: {@code the model on ND4J's CPU
   * backend, gradients over the cuda group's host half}.
   */
  public String placement() {
    String b = group.backend();
    return switch (path) {
      case HOST ->
          "the model on ND4J's CPU backend, gradients over the "
              + (b.equals("cpu") ? "cpu group" : b + " group's host half (a cpu group)");
      case DEVICE -> "the model on ND4J's CUDA backend, gradients over the " + b + " group on GPU";
      case HOST_STAGED ->
          "the model on ND4J's CUDA backend, gradients over the cpu group through host copies";
    };
  }

  /** Whether buckets travel as device memory ({@code cuda} group on ND4J's CUDA backend). */
  public boolean onDevice() {
    return device != null;
  }

  /**
   * Starts summing {@code array} in place where ND4J keeps it. Device memory: on a communication
   * stream that waits (on the GPU, through an event) for the kernels ND4J queued before on its own
   * stream, so the all-reduce overlaps ND4J's later backward kernels with no host synchronisation;
   * the allocator is told the device copy changed. Host copies of device arrays: brought up to date
   * first, marked newest once a wait saw the sum. Host memory: in place.
   */
  @Override
  public Work start(INDArray array) {
    if (device != null) {
      DeviceBuffer onNd4jStream = device.describe(array);
      if (comm == null) {
        comm = new CommStream(CommStream.Priority.HIGHEST);
      }
      comm.waitFor(onNd4jStream.stream());
      Work w = group.allReduce(onNd4jStream.onStream(comm.handle()), ReduceOp.SUM);
      device.deviceWritten(array);
      return w;
    }
    if (stagesOnHost()) {
      Nd4j.getAffinityManager().ensureLocation(array, AffinityManager.Location.HOST);
      return new HostStagedWork(group.allReduce(NdBuffers.host(array), ReduceOp.SUM), array);
    }
    return group.allReduce(NdBuffers.host(array), ReduceOp.SUM);
  }

  /** Copies rank {@code root}'s {@code array} into every rank's, in place; waits for it. */
  public void broadcast(INDArray array, int root) {
    if (device != null) {
      Work w = group.broadcast(device.describe(array), root);
      device.deviceWritten(array);
      w.await();
      return;
    }
    if (stagesOnHost()) {
      Nd4j.getAffinityManager().ensureLocation(array, AffinityManager.Location.HOST);
    }
    group.broadcast(NdBuffers.host(array), root).await();
    if (stagesOnHost()) {
      Nd4j.getAffinityManager().tagLocation(array, AffinityManager.Location.HOST);
    }
  }

  /**
   * Replaces {@code array} (contiguous, outside workspaces) by its sum over all ranks; waits for
   * it.
   */
  public void sumInPlace(INDArray array) {
    start(array).await(group.timeout());
  }

  /** Starts summing {@code values} over all ranks; {@link Sum#await} returns the sums. */
  public Sum startSum(long[] values) {
    if (device == null) {
      Work w = group.allReduce(HostBuffer.of(values), ReduceOp.SUM);
      return new Sum(w, () -> values);
    }
    INDArray onDevice;
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      onDevice = Nd4j.createFromArray(values);
    }
    Work w = group.allReduce(device.describe(onDevice), ReduceOp.SUM);
    device.deviceWritten(onDevice);
    return new Sum(w, onDevice::toLongVector);
  }

  /** Sums {@code values} over all ranks and returns the sums (synchronously). */
  public long[] sum(long[] values) {
    return startSum(values).await(group.timeout());
  }

  /** A sum of counts in flight. */
  public static final class Sum {
    private final Work work;
    private final Supplier<long[]> result;

    private Sum(Work work, Supplier<long[]> result) {
      this.work = work;
      this.result = result;
    }

    /** Waits up to {@code timeout} and returns the sums. */
    public long[] await(Duration timeout) {
      work.await(timeout);
      return result.get();
    }

    /** Whether the sum is complete, so that {@link #await} will not block. Never blocks. */
    public boolean isCompleted() {
      return work.isCompleted();
    }
  }
}
