package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import java.util.function.Supplier;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/** The route of a group of one rank: every collective is a copy at most, no kernel, no scratch. */
final class LocalRoute implements CudaRoute {

  private final Completion done;

  LocalRoute(Completion done) {
    this.done = done;
  }

  /** Copies {@code from} into {@code to} on {@code stream} unless they coincide. */
  static void copy(DeviceBuffer from, DeviceBuffer to, CUstream stream) {
    if (from.devicePointer() != to.devicePointer() && from.sizeBytes() > 0) {
      Cu.check(
          JCudaDriver.cuMemcpyDtoDAsync(
              Cu.ptr(to.devicePointer()), Cu.ptr(from.devicePointer()), from.sizeBytes(), stream),
          "cuMemcpyDtoDAsync");
    }
  }

  @Override
  public Work allReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream, Supplier<String> what) {
    copy(in, out, stream);
    return done.after(stream, what);
  }

  @Override
  public Work broadcast(DeviceBuffer buffer, int root, CUstream stream, Supplier<String> what) {
    return done.after(stream, what);
  }

  @Override
  public Work allGather(
      DeviceBuffer part, DeviceBuffer whole, CUstream stream, Supplier<String> what) {
    copy(part, whole, stream);
    return done.after(stream, what);
  }

  @Override
  public Work reduceScatter(
      DeviceBuffer whole, DeviceBuffer part, ReduceOp op, CUstream stream, Supplier<String> what) {
    copy(whole, part, stream);
    return done.after(stream, what);
  }

  @Override
  public Work barrier(DeviceBuffer word, CUstream stream, Supplier<String> what) {
    return done.after(stream, what);
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public String toString() {
    return "no scratch (one rank)";
  }
}
