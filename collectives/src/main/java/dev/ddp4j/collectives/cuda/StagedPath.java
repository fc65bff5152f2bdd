package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.CudaException;
import dev.ddp4j.collectives.gpu.CudaWork;
import dev.ddp4j.collectives.gpu.EventPool;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUcontext;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamWaitValue_flags;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The host-staged transport of a cuda group whose GPUs lack a peer path (or sit on different
 * hosts): device -> pinned host memory -> the cpu backend's collective (shared memory on one host,
 * sockets between hosts) -> device, in chunks of one {@link PinnedStaging} slot, pipelined so that
 * copy-in, host collective and copy-out of successive chunks overlap:
 *
 * <pre>
 *   caller stream  --fork event--> copy-in stream:  [wait slot free] DtoH chunk i, inFlag = i
 *                                  staging thread:  wait inFlag >= i, cpu collective on slot, outFlag = i
 *                                  copy-out stream: wait outFlag >= i, HtoD chunk i, record slot free
 *   caller stream  <--join event-- copy-out stream; then the Work's event on the caller stream
 * </pre>
 *
 * Work queued on the caller's stream after the call sees the result; the Work completes through the
 * event (and fails with the host stage's error). Collectives of the group run in call order on the
 * two internal streams, whatever stream each call names. Not thread safe, like its group.
 */
final class StagedPath {

  private final int rank;
  private final int size;
  private final Duration timeout;
  private final CUcontext context;
  private final EventPool events;
  private final List<ProcessGroup> hosts;
  private final PinnedStaging pinned;

  /** Chunk k (counting from 1) runs on lane (k - 1) mod lanes: each lane a thread and cpu group. */
  private final HostStageLoop[] lanes;

  private final CUstream copyIn = new CUstream();
  private final CUstream copyOut = new CUstream();
  private final CUevent fork = new CUevent();
  private final CUevent join = new CUevent();
  private final CUevent[] slotFree;
  private final ArrayDeque<StagedWork> inflight = new ArrayDeque<>();
  private long chunkSeq;
  private long collectiveSeq;

  StagedPath(
      int rank,
      int size,
      Duration timeout,
      CUcontext context,
      EventPool events,
      List<ProcessGroup> hosts,
      PinnedStaging pinned) {
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
    this.context = context;
    this.events = events;
    this.hosts = hosts;
    this.pinned = pinned;
    this.lanes = new HostStageLoop[hosts.size()];
    for (int i = 0; i < lanes.length; i++) {
      lanes[i] = new HostStageLoop(pinned, hosts.get(i), "ddp4j-cuda-staging" + i + "-rank" + rank);
    }
    Cu.check(JCudaDriver.cuStreamCreate(copyIn, CUstream_flags.CU_STREAM_NON_BLOCKING), "copy-in");
    Cu.check(
        JCudaDriver.cuStreamCreate(copyOut, CUstream_flags.CU_STREAM_NON_BLOCKING), "copy-out");
    Cu.check(JCudaDriver.cuEventCreate(fork, CUevent_flags.CU_EVENT_DISABLE_TIMING), "fork");
    Cu.check(JCudaDriver.cuEventCreate(join, CUevent_flags.CU_EVENT_DISABLE_TIMING), "join");
    slotFree = new CUevent[pinned.slots()];
    for (int s = 0; s < slotFree.length; s++) {
      slotFree[s] = new CUevent();
      Cu.check(
          JCudaDriver.cuEventCreate(slotFree[s], CUevent_flags.CU_EVENT_DISABLE_TIMING), "slot");
    }
  }

  /** Records each collective for the cuda group's stall inspector; null in tests. */
  private dev.ddp4j.collectives.stall.StallInspector stalls;

  /** Slots of pinned memory per lane that chunks pass through (at least 4 in all). */
  static final int SLOTS_PER_LANE = 2;

  /**
   * Joins the host group of a staged cuda group (collective: every rank calls it with the same
   * {@code groupName}) and allocates the pinned slots. The lanes' cpu groups get this process's
   * options {@link dev.ddp4j.collectives.cpu.CpuGroupOptions#quiet quietened}: the cuda group logs
   * the routes and watches its collectives itself.
   */
  static StagedPath open(
      dev.ddp4j.WorkerEnvironment worker,
      dev.ddp4j.Store store,
      Duration timeout,
      String groupName,
      CUcontext context,
      EventPool events,
      dev.ddp4j.collectives.stall.StallInspector stalls,
      dev.ddp4j.spi.Settings settings) {
    dev.ddp4j.collectives.cpu.CpuGroupOptions lanes =
        dev.ddp4j.collectives.cpu.CpuGroupOptions.from(settings).quiet();
    long chunkBytes = CudaSettings.stagedChunkBytes(settings);
    int laneCount = CudaSettings.stagedLanes(settings);
    List<ProcessGroup> hosts = new ArrayList<>();
    try {
      for (int i = 0; i < laneCount; i++) {
        hosts.add(
            dev.ddp4j.collectives.cpu.CpuProcessGroup.create(
                worker, store, timeout, lanes, groupName + i));
      }
      StagedPath path =
          new StagedPath(
              worker.rank(),
              worker.worldSize(),
              timeout,
              context,
              events,
              hosts,
              new PinnedStaging(Math.max(4, SLOTS_PER_LANE * laneCount), chunkBytes));
      path.stalls = stalls;
      return path;
    } catch (RuntimeException e) {
      hosts.forEach(ProcessGroup::close);
      throw e;
    }
  }

  long pinnedBytes() {
    return pinned.pinnedBytes();
  }

  /** The host group's channels and the slot size, for the route lines and the log. */
  @Override
  public String toString() {
    return "host-staged: "
        + pinned.slots()
        + " pinned slots x "
        + (pinned.slotBytes() >> 10)
        + " KiB over "
        + lanes.length
        + " cpu backend lane(s)";
  }

  Work allReduce(DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream) {
    DataType t = in.dataType();
    String what = "allReduce(" + in.count() + " " + t + ", " + op + ")";
    return chunked(
        what,
        in.count(),
        pinned.slotBytes() / t.sizeBytes(),
        stream,
        (slot, off, n) -> dtoh(slot, 0, in.devicePointer() + t.bytesFor(off), t.bytesFor(n)),
        (off, n) -> (host, a) -> host.allReduce(HostBuffer.ofAddress(a, n, t), op),
        (slot, off, n) -> htod(out.devicePointer() + t.bytesFor(off), slot, 0, t.bytesFor(n)));
  }

  Work broadcast(DeviceBuffer b, int root, CUstream stream) {
    DataType t = b.dataType();
    String what = "broadcast(" + b.count() + " " + t + ", root " + root + ")";
    return chunked(
        what,
        b.count(),
        pinned.slotBytes() / t.sizeBytes(),
        stream,
        (slot, off, n) -> {
          if (rank == root) {
            dtoh(slot, 0, b.devicePointer() + t.bytesFor(off), t.bytesFor(n));
          }
        },
        (off, n) -> (host, a) -> host.broadcast(HostBuffer.ofAddress(a, n, t), root),
        (slot, off, n) -> {
          if (rank != root) {
            htod(b.devicePointer() + t.bytesFor(off), slot, 0, t.bytesFor(n));
          }
        });
  }

  /** The slot holds every rank's part of the chunk, rank r's at r x (chunk bytes). */
  Work allGather(DeviceBuffer in, DeviceBuffer out, CUstream stream) {
    DataType t = in.dataType();
    long part = in.count();
    String what = "allGather(" + part + " " + t + ")";
    return chunked(
        what,
        part,
        pinned.slotBytes() / size / t.sizeBytes(),
        stream,
        (slot, off, n) ->
            dtoh(slot, rank * t.bytesFor(n), in.devicePointer() + t.bytesFor(off), t.bytesFor(n)),
        (off, n) ->
            (host, a) ->
                host.allGather(
                    HostBuffer.ofAddress(a + rank * t.bytesFor(n), n, t),
                    HostBuffer.ofAddress(a, n * size, t)),
        (slot, off, n) -> {
          long bytes = t.bytesFor(n);
          for (int r = 0; r < size; r++) {
            htod(out.devicePointer() + t.bytesFor(r * part + off), slot, r * bytes, bytes);
          }
        });
  }

  /** The slot holds the chunk of every rank's block, block r at r x (chunk bytes), as allGather. */
  Work reduceScatter(DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream) {
    DataType t = out.dataType();
    long part = out.count();
    String what = "reduceScatter(" + part + " " + t + ", " + op + ")";
    return chunked(
        what,
        part,
        pinned.slotBytes() / size / t.sizeBytes(),
        stream,
        (slot, off, n) -> {
          long bytes = t.bytesFor(n);
          for (int r = 0; r < size; r++) {
            dtoh(slot, r * bytes, in.devicePointer() + t.bytesFor(r * part + off), bytes);
          }
        },
        (off, n) ->
            (host, a) ->
                host.reduceScatter(
                    HostBuffer.ofAddress(a, n * size, t),
                    HostBuffer.ofAddress(a + rank * t.bytesFor(n), n, t),
                    op),
        (slot, off, n) ->
            htod(out.devicePointer() + t.bytesFor(off), slot, rank * t.bytesFor(n), t.bytesFor(n)));
  }

  /** One chunk through the host group, nothing copied. */
  Work barrier(CUstream stream) {
    return chunked(
        "barrier()", 1, 1, stream, NO_COPY, (off, n) -> (host, a) -> host.barrier(), NO_COPY);
  }

  /** Queues the copies of elements [off, off + n) of a collective between its buffers and slot. */
  private interface ChunkCopy {
    void queue(int slot, long off, long n);
  }

  /** The host collective on elements [off, off + n), run on the slot's pinned memory. */
  private interface HostStep {
    HostStageLoop.Body of(long off, long n);
  }

  private static final ChunkCopy NO_COPY = (slot, off, n) -> {};

  /**
   * The one chunk loop of every staged collective: {@code count} elements in chunks of {@code per},
   * each one copied in on the copy-in stream, flagged, reduced or moved by a lane's host group,
   * awaited on the copy-out stream, copied out, and its slot released (the diagram above).
   */
  private Work chunked(
      String what,
      long count,
      long per,
      CUstream stream,
      ChunkCopy copyIn,
      HostStep host,
      ChunkCopy copyOut) {
    StagedWork w = begin(what, chunks(count, per), stream);
    for (long off = 0; off < count; off += per) {
      long n = Math.min(per, count - off);
      int slot = slotFor();
      int value = (int) chunkSeq;
      copyIn.queue(slot, off, n);
      signalIn(slot, value);
      queue(new HostStageLoop.Chunk(slot, value, w, host.of(off, n)));
      waitOut(slot, value);
      copyOut.queue(slot, off, n);
      slotDone(slot);
    }
    return end(w, stream);
  }

  /** Hands the chunk just numbered by {@link #slotFor} to its lane. */
  private void queue(HostStageLoop.Chunk c) {
    lanes[(int) ((chunkSeq - 1) % lanes.length)].add(c);
  }

  private static int chunks(long count, long per) {
    return Math.toIntExact((count + per - 1) / per);
  }

  private StagedWork begin(String what, int chunks, CUstream stream) {
    Cu.check(JCudaDriver.cuEventRecord(fork, stream), "cuEventRecord (fork)");
    Cu.check(JCudaDriver.cuStreamWaitEvent(copyIn, fork, 0), "cuStreamWaitEvent (fork)");
    // Retire finished works now and then, so that their events return to the pool.
    if (inflight.size() > 64) {
      while (!inflight.isEmpty() && inflight.peekFirst().isCompleted()) {
        inflight.removeFirst();
      }
    }
    StagedWork w = new StagedWork(collectiveSeq++, what, timeout, chunks);
    inflight.addLast(w);
    return w;
  }

  private Work end(StagedWork w, CUstream stream) {
    Cu.check(JCudaDriver.cuEventRecord(join, copyOut), "cuEventRecord (join)");
    Cu.check(JCudaDriver.cuStreamWaitEvent(stream, join, 0), "cuStreamWaitEvent (join)");
    CUevent done = events.take();
    Cu.check(JCudaDriver.cuEventRecord(done, stream), "cuEventRecord");
    w.attach(new CudaWork(w.sequenceNumber(), w::what, timeout, context, events, done, null));
    if (stalls != null) {
      stalls.issued(w, w::what);
    }
    return w;
  }

  /** The next chunk's slot; the copy-in stream first waits until its last chunk was copied out. */
  private int slotFor() {
    int slot = (int) (chunkSeq % pinned.slots());
    if (chunkSeq >= pinned.slots()) {
      Cu.check(JCudaDriver.cuStreamWaitEvent(copyIn, slotFree[slot], 0), "cuStreamWaitEvent");
    }
    chunkSeq++;
    return slot;
  }

  private void dtoh(int slot, long slotOffset, long src, long bytes) {
    Cu.check(
        JCudaDriver.cuMemcpyDtoHAsync(pinned.pointer(slot, slotOffset), Cu.ptr(src), bytes, copyIn),
        "cuMemcpyDtoHAsync of " + bytes + " bytes into staging slot " + slot);
  }

  private void signalIn(int slot, int value) {
    Cu.check(
        JCudaDriver.cuStreamWriteValue32(copyIn, pinned.inFlagDevice(slot), value, 0),
        "cuStreamWriteValue32 of staging slot " + slot + "'s flag");
  }

  private void waitOut(int slot, int value) {
    Cu.check(
        JCudaDriver.cuStreamWaitValue32(
            copyOut,
            pinned.outFlagDevice(slot),
            value,
            CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ),
        "cuStreamWaitValue32 on staging slot " + slot + "'s flag");
  }

  private void htod(long dst, int slot, long slotOffset, long bytes) {
    Cu.check(
        JCudaDriver.cuMemcpyHtoDAsync(
            Cu.ptr(dst), pinned.pointer(slot, slotOffset), bytes, copyOut),
        "cuMemcpyHtoDAsync of " + bytes + " bytes from staging slot " + slot);
  }

  private void slotDone(int slot) {
    Cu.check(JCudaDriver.cuEventRecord(slotFree[slot], copyOut), "cuEventRecord (slot free)");
  }

  /**
   * Waits for the collectives in flight, stops the staging thread, drains the copy streams and
   * frees the pinned memory (leaked, with the reason in the returned errors, if a stream never
   * drains: freeing memory a stream still copies would corrupt the process). Then closes the cpu
   * group. Needs the context current.
   */
  List<RuntimeException> close() {
    List<RuntimeException> errors = new ArrayList<>();
    for (StagedWork w : inflight) {
      try {
        w.await(timeout);
      } catch (RuntimeException e) {
        if (!w.isCompleted()) { // a failed collective was already reported through its Work
          errors.add(e);
        }
      }
    }
    inflight.clear();
    for (HostStageLoop lane : lanes) {
      lane.stop(timeout.toMillis());
    }
    boolean drained = drain(copyIn) && drain(copyOut);
    if (drained) {
      pinned.close();
      JCudaDriver.cuStreamDestroy(copyIn);
      JCudaDriver.cuStreamDestroy(copyOut);
      JCudaDriver.cuEventDestroy(fork);
      JCudaDriver.cuEventDestroy(join);
      for (CUevent e : slotFree) {
        JCudaDriver.cuEventDestroy(e);
      }
    } else {
      errors.add(
          new CudaException(
              "rank "
                  + rank
                  + ": the staging copy streams did not drain within "
                  + timeout.toSeconds()
                  + " s; their pinned memory is left allocated",
              0));
    }
    errors.addAll(CloseSteps.each(hosts));
    return errors;
  }

  private boolean drain(CUstream s) {
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    while (JCudaDriver.cuStreamQuery(s) == jcuda.driver.CUresult.CUDA_ERROR_NOT_READY) {
      if (System.nanoTime() - deadlineNs > 0) {
        return false;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }
    return true;
  }
}
