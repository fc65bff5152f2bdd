package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.cuda.CommStream;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A {@link CommHook} for ND4J's CUDA backend and the {@code cuda} group: each bucket is all-reduced
 * in place in device memory on the device bucket engine's {@link CommStream}, which waits (on the
 * GPU, through an event) for the backward kernels ND4J queued before it on its own stream, so the
 * all-reduce runs while ND4J's later backward kernels run (no host copy, no host synchronisation
 * before the launch); the allocator is told that the device copy changed. The training thread waits
 * for each bucket's {@link Work} before the updater runs, which orders ND4J's later kernels after
 * the all-reduce. With a wire type (fp16/bf16) the bucket is divided by the world size and cast on
 * the device first, and cast back in {@link Pending#finish()}, like {@code CommHooks}.
 */
public final class DeviceCommHook implements CommHook {

  private final Nd4jDevice device;
  private final DataType wire;
  private final String name;
  // One per hook, made on first use; it lives as long as ND4J's context (CommHook has no close).
  private CommStream comm;

  /**
   * @param wire the type on the wire, or null to reduce in the bucket's own type
   * @param name the hook's name, as {@code DDP4J_COMM_HOOK} spells it
   */
  public DeviceCommHook(Nd4jDevice device, DataType wire, String name) {
    this.device = device;
    this.wire = wire;
    this.name = name;
  }

  /** The device variant of {@code hook}: {@code allreduce}, {@code fp16} or {@code bf16}. */
  public static CommHook of(Nd4jDevice device, CommHook hook) {
    switch (hook.name()) {
      case "allreduce":
        return new DeviceCommHook(device, null, "allreduce");
      case "fp16":
        return new DeviceCommHook(device, DataType.HALF, "fp16");
      case "bf16":
        return new DeviceCommHook(device, DataType.BFLOAT16, "bf16");
      default:
        throw new IllegalArgumentException(
            "comm hook '"
                + hook.name()
                + "' has no device variant (expected: allreduce, fp16 or bf16 with ND4J's CUDA backend"
                + " and the cuda group)");
    }
  }

  @Override
  public Pending start(ProcessGroup group, INDArray bucket) {
    int n = group.size();
    // ND4J queues div/cast on its stream; the comm stream waits for them with the backward kernels.
    INDArray onWire = wire == null ? bucket : bucket.div(n).castTo(wire);
    DeviceBuffer onNd4jStream = device.describe(onWire);
    if (comm == null) {
      comm = new CommStream(CommStream.Priority.HIGHEST); // ND4J's context is current here
    }
    comm.waitFor(onNd4jStream.stream());
    Work w = group.allReduce(onNd4jStream.onStream(comm.handle()), ReduceOp.SUM);
    device.deviceWritten(onWire);
    return new Pending() {
      @Override
      public Work work() {
        return w;
      }

      @Override
      public void finish() {
        if (wire != null) {
          bucket.assign(onWire.castTo(bucket.dataType())).muli(n);
        }
      }
    };
  }

  @Override
  public String name() {
    return name;
  }
}
