package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import jcuda.Pointer;
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
 * kernel and shape. Not thread safe: its process group calls it one collective at a time.
 */
final class AllReduceLauncher implements AutoCloseable {

  private static final int PARAM_WORDS = 18;

  private final int rank;
  private final int size;
  private final long timeoutNs;
  private final PeerScratch scratch;
  private final AllReduceKernels kernels;
  private final AllReduceChooser chooser;

  /** The kernels' Params struct as 64-bit words in native order, read by the driver per launch. */
  private final ByteBuffer params =
      ByteBuffer.allocateDirect(PARAM_WORDS * 8).order(ByteOrder.nativeOrder());

  private final Pointer kernelParams = Pointer.to(Pointer.to(params));

  /** Launch through {@link DirectLaunch} (JNA) where it loads: cheaper per call than JCuda. */
  private boolean directLaunch = DirectLaunch.available();

  private final ByteBuffer paramArray = directLaunch ? DirectLaunch.paramArray(params) : null;
  private final long paramArrayAddress = directLaunch ? DirectLaunch.address(paramArray) : 0;

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
      AllReduceChooser chooser) {
    this.rank = rank;
    this.size = size;
    this.timeoutNs = timeout.toNanos();
    this.scratch = scratch;
    this.kernels = kernels;
    this.chooser = chooser;
  }

  /**
   * Exchanges the scratch with every rank (collective, see {@link PeerScratch#exchange}) and loads
   * the kernels into the current context.
   */
  static AllReduceLauncher open(
      int rank,
      int size,
      CUdevice device,
      Store store,
      String prefix,
      Duration timeout,
      AllReduceChooser chooser,
      long scratchBudgetBytes) {
    PeerScratch scratch =
        PeerScratch.exchange(
            ScratchLayout.within(size, scratchBudgetBytes), rank, device, store, prefix, timeout);
    AllReduceLauncher l =
        new AllReduceLauncher(rank, size, timeout, scratch, new AllReduceKernels(), chooser);
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
    return scratch.layout().slotBytes();
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
    long pieceElems = scratch.layout().slotBytes() / t.sizeBytes();
    for (long done = 0; done < count; done += pieceElems) {
      long n = Math.min(pieceElems, count - done);
      AllReduceTuning tuning = chooser.choose(t.bytesFor(n), size, t);
      long seq = nextSeq();
      if (tuning.algorithm() == AllReduceAlgorithm.COPY_ENGINE) {
        queueCopies(seq, tuning, in, done, n, stream);
      }
      launch(seq, tuning, kernels.get(tuning.algorithm(), t, op), in, out, done, n, stream);
    }
  }

  /**
   * ns per {@code cuLaunchKernel} of an all-reduce kernel with nothing to do, through JCuda and
   * through {@link DirectLaunch} (-1 where JNA did not load), each over {@code calls} launches on
   * {@code stream}, synchronised after each loop. {@code anywhere} is any device buffer of this
   * rank (the kernel touches nothing).
   */
  long[] launchCostNs(int calls, CUstream stream, DeviceBuffer anywhere) {
    AllReduceTuning t = new AllReduceTuning(AllReduceAlgorithm.ONESHOT, 1, 16);
    CUfunction f = kernels.get(AllReduceAlgorithm.ONESHOT, DataType.FLOAT32, ReduceOp.SUM);
    DeviceBuffer nothing = anywhere.slice(0, 0);
    boolean direct = directLaunch;
    long[] ns = {-1, -1};
    for (int way = 0; way < (direct ? 2 : 1); way++) {
      directLaunch = way == 1;
      long t0 = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        launch(launchSeq, t, f, nothing, nothing, 0, 0, stream);
      }
      ns[way] = (System.nanoTime() - t0) / calls;
      Cu.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
    }
    directLaunch = direct;
    return ns;
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
    params.putLong(0, in.devicePointer() + offsetBytes);
    params.putLong(8, out.devicePointer() + offsetBytes);
    params.putLong(16, count);
    params.putLong(24, seq);
    params.putLong(32, rank);
    params.putLong(40, size);
    params.putLong(48, scratch.layout().slotBytes());
    params.putLong(56, tuning.stepBytes());
    params.putLong(64, tuning.blocks());
    params.putLong(72, timeoutNs);
    for (int r = 0; r < size; r++) {
      params.putLong(80 + 8 * r, scratch.base(r));
    }
    int rc =
        directLaunch
            ? DirectLaunch.launch(
                DirectLaunch.handle(f),
                tuning.gridBlocks(),
                AllReduceKernels.THREADS,
                Cu.handle(stream),
                paramArrayAddress)
            : JCudaDriver.cuLaunchKernel(
                f,
                tuning.gridBlocks(),
                1,
                1,
                AllReduceKernels.THREADS,
                1,
                1,
                0,
                stream,
                kernelParams,
                null);
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
