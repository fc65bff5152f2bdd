package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.gpu.Cu;
import java.time.Duration;
import java.util.Locale;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Queues one rank's reduce-scatter, all-gather and broadcast kernels ({@code
 * src/main/cuda/ddp4j_collectives.cu}, "push, then combine") over the all-reduce's IPC scratch,
 * taking launch sequence numbers from the same counter, so that these kernels and the all-reduce
 * kernels can follow each other in any order. A message larger than a scratch slot runs as several
 * launches. Not thread safe: its process group calls it one collective at a time.
 */
final class CollectiveLauncher implements AutoCloseable {

  static final String RESOURCE = "/dev/ddp4j/collectives/cuda/ddp4j_collectives.fatbin";

  /**
   * The kernels' Params (ddp4j_collectives.cu, whose static_assert holds the same numbers): 12
   * words, then the scratch bases; AllReduceLauncher's Params begin the same.
   */
  static final int PARAM_BYTES = AllReduceLauncher.SCRATCH_OFFSET + 8 * ScratchLayout.MAX_RANKS;

  private final int rank;
  private final int size;
  private final long timeoutNs;
  private final int maxBlocks;
  private final AllReduceLauncher allReduce;
  private final PeerScratch scratch;
  private final CUmodule module = new CUmodule();
  private final CUfunction[][] reduceScatter =
      new CUfunction[DataType.values().length][ReduceOp.values().length];
  private final CUfunction allGather;
  private final CUfunction broadcast;

  /** The kernels' Params struct, read by the driver per launch. */
  private final KernelParams params = new KernelParams(PARAM_BYTES);

  /**
   * Loads the kernels into the current context; launches go over {@code allReduce}'s scratch.
   *
   * @param maxBlocks the most pusher blocks one launch uses (the grid is twice that)
   */
  CollectiveLauncher(
      int rank, int size, Duration timeout, int maxBlocks, AllReduceLauncher allReduce) {
    this.rank = rank;
    this.size = size;
    this.timeoutNs = timeout.toNanos();
    this.maxBlocks = Math.max(1, Math.min(maxBlocks, ScratchLayout.MAX_BLOCKS / 2));
    this.allReduce = allReduce;
    this.scratch = allReduce.scratch();
    Cu.loadModule(module, RESOURCE);
    for (DataType t : DataType.values()) {
      for (ReduceOp op : ReduceOp.values()) {
        reduceScatter[t.ordinal()][op.ordinal()] = Cu.function(module, reduceScatterName(t, op));
      }
    }
    allGather = Cu.function(module, "ddp4j_allgather_bytes");
    broadcast = Cu.function(module, "ddp4j_broadcast_bytes");
  }

  static String reduceScatterName(DataType t, ReduceOp op) {
    String o = op == ReduceOp.PRODUCT ? "prod" : op.name().toLowerCase(Locale.ROOT);
    return "ddp4j_reducescatter_" + t.ncclName() + "_" + o;
  }

  /**
   * Reduces {@code in} (size blocks of {@code out.count()} elements) into {@code out}, this rank's
   * block; {@code out} is disjoint from {@code in} or is exactly block rank of it.
   */
  void reduceScatter(DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream) {
    DataType t = out.dataType();
    CUfunction f = reduceScatter[t.ordinal()][op.ordinal()];
    long block = out.count();
    long piece = scratch.layout().slotBytes() / t.sizeBytes();
    for (long done = 0; done < block; done += piece) {
      long n = Math.min(piece, block - done);
      long at = t.bytesFor(done);
      launch(
          f, in.devicePointer() + at, out.devicePointer() + at, n, block, 0, t.bytesFor(n), stream);
    }
  }

  /**
   * Gathers every rank's {@code partBytes} from {@code in} into {@code out} (size parts); {@code
   * in} is disjoint from {@code out} or is exactly part rank of it.
   */
  void allGather(long in, long out, long partBytes, CUstream stream) {
    long piece = scratch.layout().slotBytes();
    for (long done = 0; done < partBytes; done += piece) {
      long n = Math.min(piece, partBytes - done);
      launch(allGather, in + done, out + done, n, partBytes, 0, n, stream);
    }
  }

  /** Copies rank {@code root}'s {@code bytes} at {@code buffer} into every other rank's. */
  void broadcast(long buffer, long bytes, int root, CUstream stream) {
    long piece = scratch.layout().slotBytes();
    for (long done = 0; done < bytes; done += piece) {
      long n = Math.min(piece, bytes - done);
      launch(broadcast, buffer + done, buffer + done, n, 0, root, n, stream);
    }
  }

  /** Pusher blocks for {@code pushBytes} per destination: one per 32 KiB, at most {@code max}. */
  private static int blocksFor(long pushBytes, int max) {
    long perBlock = PlanChooser.BYTES_PER_BLOCK;
    return (int) Math.max(1, Math.min(max, (pushBytes + perBlock - 1) / perBlock));
  }

  /** One launch on as many pusher blocks as {@code pushBytes} per destination needs. */
  private void launch(
      CUfunction f,
      long in,
      long out,
      long count,
      long stride,
      int root,
      long pushBytes,
      CUstream stream) {
    int blocks = blocksFor(pushBytes, maxBlocks);
    params.fill(
        in,
        out,
        count,
        allReduce.nextSeq(),
        rank,
        size,
        PlanChooser.STEP_BYTES,
        blocks,
        timeoutNs,
        stride,
        root,
        scratch);
    int rc = params.launch(f, 2 * blocks, stream);
    if (rc != 0) {
      Cu.check(rc, "cuLaunchKernel of a " + count + "-element collective on " + blocks + " blocks");
    }
  }

  /** Unloads the kernels; needs the context current and no launch in flight. */
  @Override
  public void close() {
    JCudaDriver.cuModuleUnload(module);
  }
}
