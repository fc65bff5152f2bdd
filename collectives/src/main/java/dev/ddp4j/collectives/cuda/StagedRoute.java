package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import java.util.List;
import java.util.function.Supplier;
import jcuda.driver.CUstream;

/**
 * The route of a group with a hop between hosts: every collective through pinned host memory and
 * the cpu backend ({@link StagedPath}), which completes its own Work.
 */
final class StagedRoute implements CudaRoute {

  private final StagedPath staged;

  StagedRoute(StagedPath staged) {
    this.staged = staged;
  }

  @Override
  public Work allReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream, Supplier<String> what) {
    return staged.allReduce(in, out, op, stream);
  }

  @Override
  public Work broadcast(DeviceBuffer buffer, int root, CUstream stream, Supplier<String> what) {
    return staged.broadcast(buffer, root, stream);
  }

  @Override
  public Work allGather(
      DeviceBuffer part, DeviceBuffer whole, CUstream stream, Supplier<String> what) {
    return staged.allGather(part, whole, stream);
  }

  @Override
  public Work reduceScatter(
      DeviceBuffer whole, DeviceBuffer part, ReduceOp op, CUstream stream, Supplier<String> what) {
    return staged.reduceScatter(whole, part, op, stream);
  }

  @Override
  public Work barrier(DeviceBuffer word, CUstream stream, Supplier<String> what) {
    return staged.barrier(stream);
  }

  @Override
  public String name() {
    return "staged";
  }

  @Override
  public List<RuntimeException> close() {
    return staged.close();
  }

  @Override
  public String toString() {
    return staged.toString();
  }
}
