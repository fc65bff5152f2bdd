package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.plan.Algorithm;
import java.time.Duration;
import java.util.List;
import jcuda.driver.CUdevice;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * Queues one rank's all-reduce kernels (two or more ranks): the IPC scratch, the loaded kernels,
 * the kernels' parameter block and the launch sequence number that every rank counts alike. A
 * message larger than a scratch slot runs as several launches; the chooser picks each launch's
 * kernel and shape. In a group routed around pairs without peer access (the route {@code
 * GpuPlanning.route} names {@code ring}) every launch is the ring kernel, and only the ring
 * successor's scratch is mapped. Not thread safe: its process group calls it one collective at a
 * time.
 */
final class AllReduceLauncher implements AutoCloseable {

  /**
   * The kernels' Params (ddp4j_allreduce.cu, whose static_asserts hold the same numbers): 12 words,
   * the scratch bases, the number of ring orders, then the orders, a byte a position.
   */
  static final int SCRATCH_OFFSET = KernelParams.SCRATCH_OFFSET;

  static final int NRINGS_OFFSET = SCRATCH_OFFSET + 8 * ScratchLayout.MAX_RANKS;
  static final int RINGS_OFFSET = NRINGS_OFFSET + 8;

  /** Ring orders a launch takes (the kernels' MAX_RING_ORDERS): block b follows order b % n. */
  static final int MAX_RING_ORDERS = 16;

  static final int PARAM_BYTES = RINGS_OFFSET + MAX_RING_ORDERS * ScratchLayout.MAX_RANKS;

  /**
   * A ring launch's regions overrun the receive area by up to 32 bytes of chunk rounding unless it
   * leaves this much of a slot free (ddp4j_allreduce.cu, ring).
   */
  static final long RING_SLOT_SLACK_BYTES = 64;

  private final int rank;
  private final int size;
  private final long timeoutNs;
  private final PeerScratch scratch;
  private final AllReduceKernels kernels;
  private final AllReduceChooser chooser;

  /** Every launch runs the ring: pairs off the ring have no peer access (nor mapped scratch). */
  private final boolean ringOnly;

  /** The kernels' Params struct, read by the driver per launch. */
  private final KernelParams params = new KernelParams(PARAM_BYTES);

  /** Where the copy-engine algorithm queues its peer copies and flag writes. */
  private final CUstream copyStream = new CUstream();

  /**
   * Recorded on the caller's stream before each copy-engine launch; the copy stream waits on it.
   */
  private final CUevent copyOrder = new CUevent();

  private long launchSeq;

  private AllReduceLauncher(
      int rank,
      int size,
      Duration timeout,
      PeerScratch scratch,
      AllReduceKernels kernels,
      AllReduceChooser chooser,
      List<int[]> rings,
      boolean ringOnly) {
    this.rank = rank;
    this.size = size;
    this.timeoutNs = timeout.toNanos();
    this.scratch = scratch;
    this.kernels = kernels;
    this.chooser = chooser;
    this.ringOnly = ringOnly;
    // The orders are the group's for its lifetime: written once, every launch passes them on.
    params.buffer().putLong(NRINGS_OFFSET, rings.size());
    for (int o = 0; o < rings.size(); o++) {
      params.buffer().put(RINGS_OFFSET + o * ScratchLayout.MAX_RANKS, PeerRing.pack(rings.get(o)));
    }
  }

  /**
   * Exchanges the scratch with every rank (collective, see {@link PeerScratch#exchange}) and loads
   * the kernels into the current context.
   *
   * @param rings the rank orders the ring kernel follows, block b order b % their count (the plan's
   *     ring channels, at most {@link #MAX_RING_ORDERS}); with {@code ringOnly} exactly one, every
   *     launch runs the ring and only its successor's scratch is opened, else the ring is one
   *     algorithm among the others and every peer's scratch is opened
   * @param hostIn with {@code ringOnly}: the hop from this rank's ring predecessor lacks peer
   *     access and comes through host memory ({@link HostHop})
   * @param hostOut with {@code ringOnly}: the hop to the successor goes through host memory
   */
  static AllReduceLauncher open(
      int rank,
      int size,
      CUdevice device,
      Store store,
      String prefix,
      Duration timeout,
      AllReduceChooser chooser,
      AllReduceKernels kernels,
      long scratchBudgetBytes,
      List<int[]> rings,
      boolean ringOnly,
      boolean hostIn,
      boolean hostOut) {
    if (rings.isEmpty() || rings.size() > MAX_RING_ORDERS || (ringOnly && rings.size() != 1)) {
      throw new IllegalArgumentException(
          rings.size()
              + " ring orders"
              + (ringOnly ? " for a ring-only group" : "")
              + " (expected: "
              + (ringOnly ? "1, only its successor is mapped" : "1 to " + MAX_RING_ORDERS)
              + ")");
    }
    boolean[] mapped = new boolean[size];
    int next = PeerRing.next(rings.get(0), rank);
    for (int r = 0; r < size; r++) {
      mapped[r] = r != rank && (!ringOnly || (r == next && !hostOut));
    }
    PeerScratch scratch =
        PeerScratch.exchange(
            ScratchLayout.within(size, scratchBudgetBytes),
            rank,
            device,
            store,
            prefix,
            timeout,
            mapped,
            ringOnly && hostIn,
            ringOnly && hostOut ? next : -1);
    AllReduceLauncher l =
        new AllReduceLauncher(rank, size, timeout, scratch, kernels, chooser, rings, ringOnly);
    Cu.check(
        JCudaDriver.cuStreamCreate(l.copyStream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    Cu.check(
        JCudaDriver.cuEventCreate(l.copyOrder, CUevent_flags.CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
    return l;
  }

  /** Bytes of device memory the scratch takes. */
  long allocatedBytes() {
    return scratch.allocatedBytes();
  }

  /** The most bytes one launch reduces. */
  long maxLaunchBytes() {
    return ringOnly ? ringPieceBytes() : scratch.layout().slotBytes();
  }

  /** Every launch runs the ring kernel (pairs off the ring lack peer access). */
  boolean ringOnly() {
    return ringOnly;
  }

  /** The scratch every launch of this group uses, all-reduce or not. */
  PeerScratch scratch() {
    return scratch;
  }

  /**
   * The next launch sequence number: every kernel over the scratch (all-reduce or {@link
   * CollectiveLauncher}'s) takes one, in the same order on every rank, so flags only grow and the
   * slot halves alternate.
   */
  long nextSeq() {
    return ++launchSeq;
  }

  /** Queues the reduction of {@code in} into {@code out} on {@code stream}, slot by slot. */
  void reduce(DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream) {
    DataType t = in.dataType();
    long count = in.count();
    long slotElems = scratch.layout().slotBytes() / t.sizeBytes();
    long ringElems = ringPieceBytes() / t.sizeBytes();
    for (long done = 0, n; done < count; done += n) {
      n = Math.min(slotElems, count - done);
      AllReduceTuning tuning =
          ringOnly
              ? chooser.chooseRing(t.bytesFor(n), size, t)
              : chooser.choose(t.bytesFor(n), size, t);
      if (tuning.algorithm() == Algorithm.RING) {
        n = Math.min(n, ringElems);
        tuning = tuning.fitRingFlags(t.bytesFor(n), size);
      }
      long seq = nextSeq();
      if (tuning.algorithm() == Algorithm.COPYENGINE) {
        queueCopies(seq, tuning, in, done, n, stream);
      }
      launch(seq, tuning, kernels.get(tuning.algorithm(), t, op), in, out, done, n, stream);
    }
  }

  /**
   * The copy-engine algorithm's data movement: after the work queued so far on {@code stream}
   * (which includes the previous launch's kernel, so the halves argument of the .cu file holds),
   * copy each chunk of the input into every peer's slot, then write the chunk's flag into every
   * rank's flags (a stream write with a memory barrier, so the data is visible first).
   */
  private void queueCopies(
      long seq, AllReduceTuning tuning, DeviceBuffer in, long offset, long count, CUstream stream) {
    Cu.check(JCudaDriver.cuEventRecord(copyOrder, stream), "cuEventRecord");
    Cu.check(JCudaDriver.cuStreamWaitEvent(copyStream, copyOrder, 0), "cuStreamWaitEvent");
    long src = in.devicePointer() + in.dataType().bytesFor(offset);
    long bytes = in.dataType().bytesFor(count);
    ScratchLayout layout = scratch.layout();
    long chunkBytes = tuning.stepBytes();
    long chunk = 0;
    for (long off = 0; off < bytes; off += chunkBytes) {
      long len = Math.min(chunkBytes, bytes - off);
      for (int q = 0; q < size; q++) {
        if (q != rank) {
          long dst = scratch.base(q) + layout.slotOffset(seq, q, rank) + off;
          Cu.check(
              JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(dst), Cu.ptr(src + off), len, copyStream),
              "cuMemcpyDtoDAsync to rank " + q + "'s slot");
        }
      }
      chunk++;
      for (int q = 0; q < size; q++) {
        Cu.check(
            JCudaDriver.cuStreamWriteValue64(
                copyStream,
                Cu.ptr(scratch.base(q) + ScratchLayout.copyEngineFlagOffset(rank)),
                (seq << 16) | chunk,
                0),
            "cuStreamWriteValue64 of rank " + q + "'s flag");
      }
    }
  }

  private void launch(
      long seq,
      AllReduceTuning tuning,
      CUfunction f,
      DeviceBuffer in,
      DeviceBuffer out,
      long offset,
      long count,
      CUstream stream) {
    long offsetBytes = in.dataType().bytesFor(offset);
    launch(
        seq,
        tuning,
        f,
        in.devicePointer() + offsetBytes,
        out.devicePointer() + offsetBytes,
        count,
        0,
        0,
        stream);
  }

  /**
   * Reduces {@code in} (size blocks of {@code out.count()} elements) into {@code out}, this rank's
   * block, with the ring kernel: each rank pushes only to its ring successor. {@code out} is
   * disjoint from {@code in} or exactly block rank of it.
   */
  void ringReduceScatter(DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream) {
    DataType t = out.dataType();
    long block = out.count();
    long pieceElems = ringPieceBytes() / t.sizeBytes();
    for (long done = 0; done < block; done += pieceElems) {
      long n = Math.min(pieceElems, block - done);
      long at = t.bytesFor(done);
      AllReduceTuning tuning =
          chooser
              .chooseRing(t.bytesFor(n) * size, size, t)
              .fitRingFlags(t.bytesFor(n) * size, size);
      launch(
          nextSeq(),
          tuning,
          kernels.ringReduceScatter(t, op),
          in.devicePointer() + at,
          out.devicePointer() + at,
          n,
          block,
          0,
          stream);
    }
  }

  /**
   * Gathers every rank's {@code partBytes} at {@code in} into {@code out} (size parts) with the
   * ring kernel; {@code in} is disjoint from {@code out} or exactly part rank of it.
   */
  void ringAllGather(long in, long out, long partBytes, CUstream stream) {
    ringBytePieces(kernels.ringAllGather(), in, out, partBytes, partBytes, 0, stream);
  }

  /**
   * Copies rank {@code root}'s {@code bytes} at {@code buffer} into every other rank's along the
   * ring (a chain from the root, each rank pushing to its successor).
   */
  void ringBroadcast(long buffer, long bytes, int root, CUstream stream) {
    ringBytePieces(kernels.ringBroadcast(), buffer, buffer, bytes, 0, root, stream);
  }

  /** The most bytes a ring launch moves per rank: a slot less the ring kernels' slack. */
  private long ringPieceBytes() {
    return scratch.layout().slotBytes() - RING_SLOT_SLACK_BYTES;
  }

  /** Launches the byte kernel {@code f} once per ring piece of {@code bytes}. */
  private void ringBytePieces(
      CUfunction f, long in, long out, long bytes, long stride, int root, CUstream stream) {
    long pieceBytes = ringPieceBytes();
    for (long done = 0; done < bytes; done += pieceBytes) {
      long n = Math.min(pieceBytes, bytes - done);
      AllReduceTuning tuning =
          chooser.chooseRing(n * size, size, DataType.UINT8).fitRingFlags(n * size, size);
      launch(nextSeq(), tuning, f, in + done, out + done, n, stride, root, stream);
    }
  }

  private void launch(
      long seq,
      AllReduceTuning tuning,
      CUfunction f,
      long inPointer,
      long outPointer,
      long count,
      long strideElems,
      int root,
      CUstream stream) {
    params.fill(
        inPointer,
        outPointer,
        count,
        seq,
        rank,
        size,
        tuning.stepBytes(),
        tuning.blocks(),
        timeoutNs,
        strideElems,
        root,
        scratch);
    int rc = params.launch(f, tuning.gridBlocks(), stream);
    if (rc != 0) {
      Cu.check(rc, "cuLaunchKernel " + tuning);
    }
  }

  /** Frees the scratch and unmaps the peers'; needs the context current and no launch in flight. */
  @Override
  public void close() {
    scratch.close();
    kernels.unload();
    JCudaDriver.cuStreamDestroy(copyStream);
    JCudaDriver.cuEventDestroy(copyOrder);
  }

  @Override
  public String toString() {
    return scratch.toString();
  }
}
