package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import java.util.List;
import jcuda.driver.CUstream;

/**
 * How the hierarchical route's column (the ranks at one position of every island) all-reduces its
 * block: ddp4j's kernels among GPUs of one host ({@link PeerColumn}), or between hosts an NCCL
 * communicator of the column's ranks ({@link NcclColumn}) or pinned host memory and the cpu
 * backend's sockets ({@link StagedColumn}).
 */
interface ColumnPath {

  /** Queues the in-place all-reduce of {@code block} on {@code stream} (the column's stream). */
  void allReduce(DeviceBuffer block, ReduceOp op, CUstream stream);

  /** Device memory the path allocated; none by default (a path through host memory). */
  default long deviceBytes() {
    return 0;
  }

  /**
   * Null while every all-reduce queued so far ran (or may still run) well; else the error that made
   * one fail, which fails the cuda group's works from then on (their results are not valid).
   */
  DdpException failure();

  /** How the column crosses, for the route's name: {@code direct}, {@code NET/NCCL ...}. */
  String describe();

  /** Frees what the path holds; the errors met on the way. */
  List<RuntimeException> close();
}
