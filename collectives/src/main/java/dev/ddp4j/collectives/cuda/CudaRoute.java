package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import java.util.List;
import java.util.function.Supplier;
import jcuda.driver.CUstream;

/**
 * How a cuda group moves each collective's data, chosen once when the group is created ({@link
 * CudaRoutes#open}) from its plan and its pairs' peer access: {@link LocalRoute} (one rank), {@link
 * PeerRoute} (every kernel over IPC, or the ring kernels around pairs without it), {@link
 * StagedRoute} (through the host, between hosts) and {@link HierarchicalRoute} (islands, at the
 * sizes the plan gives it). The group checks the buffers and orders the calls; a route queues the
 * data movement on {@code stream} and returns the Work that completes with it.
 */
interface CudaRoute {

  /** What a kernel route returns: the group's Work for what was queued on the stream. */
  interface Completion {
    Work after(CUstream stream, Supplier<String> what);
  }

  Work allReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream, Supplier<String> what);

  Work broadcast(DeviceBuffer buffer, int root, CUstream stream, Supplier<String> what);

  /** {@code part} is disjoint from {@code whole} or exactly block rank of it. */
  Work allGather(DeviceBuffer part, DeviceBuffer whole, CUstream stream, Supplier<String> what);

  /** {@code part} is disjoint from {@code whole} or exactly block rank of it. */
  Work reduceScatter(
      DeviceBuffer whole, DeviceBuffer part, ReduceOp op, CUstream stream, Supplier<String> what);

  /** Every rank has called the barrier once {@code word} (an int on this GPU) is reduced. */
  Work barrier(DeviceBuffer word, CUstream stream, Supplier<String> what);

  /**
   * Null while the route is healthy; else the error of a part that runs beside the GPU streams (the
   * hierarchical column between hosts), which fails the group's works from then on.
   */
  default dev.ddp4j.DdpException failure() {
    return null;
  }

  /**
   * The copy-engine mailbox of a route whose pairs all have peer access ({@link PeerRoute} over
   * every pair), which point-to-point, gather, scatter and all-to-all then run over; null where
   * some pair lacks one (those collectives are then made of the route's own, {@link
   * RootedCollectives}).
   */
  default MailboxCollectives mailbox() {
    return null;
  }

  /** {@code direct}, {@code ring 0-2-1-3}, {@code staged}, {@code local}, with any addition. */
  String name();

  /** Device memory the route allocated (scratch); none for a route without kernels. */
  default long deviceBytes() {
    return 0;
  }

  /**
   * The most bytes one kernel launch reduces; larger messages run as several launches. Unbounded
   * for a route without kernels.
   */
  default long maxLaunchBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * Frees what the route holds, once every rank has stopped using it; needs the group's context
   * current.
   *
   * @return the errors met on the way (empty when none); by default the route holds nothing
   */
  default List<RuntimeException> close() {
    return List.of();
  }
}
