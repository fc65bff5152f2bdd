package dev.ddp4j.collectives.nccl;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.Work;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.CudaWork;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.GroupDevice;
import dev.ddp4j.collectives.gpu.GroupRank;
import dev.ddp4j.collectives.gpu.PointToPoint;
import dev.ddp4j.collectives.gpu.StreamOrder;
import dev.ddp4j.collectives.gpu.StreamOrderedGroup;
import dev.ddp4j.collectives.group.Subgroups;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.spi.CollectiveChecks;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The {@code nccl} process group: one process per GPU, every collective handed to the machine's
 * NCCL ({@link NcclLibrary}) on the buffer's stream, under the cuda backend's contract: {@link
 * DeviceBuffer}s on this rank's GPU, collectives after the work queued on the buffer's stream and
 * ordered among themselves across streams, {@link Work} completing through a CUDA event ({@link
 * CudaWork}), the local argument checks of {@link CollectiveChecks}.
 *
 * <p>Rank 0's unique id reaches the others through the store ({@link NcclIdExchange}); the
 * communicator is non-blocking ({@link NcclComm}), so a missing rank makes the set-up or a
 * collective fail after the group's timeout, naming the ranks that never arrived ({@link
 * NcclPeers}), and the communicator is aborted ({@code ncclCommAbort}) so that no rank hangs: by
 * {@link NcclWatchdog} on a timeout, an asynchronous NCCL error (a dead peer) or another rank's
 * abort. An aborted group fails its unfinished and later collectives; close it and make another.
 * {@code NCCL_*} variables reach NCCL untouched.
 */
public final class NcclProcessGroup extends StreamOrderedGroup implements NcclWatchdog.Group {

  /** One NCCL call on the communicator handle and a stream; returns its ncclResult_t. */
  private interface Call {
    int invoke(long comm, long stream);
  }

  private final NcclLibrary lib;
  private final NcclComm comm;
  private final NcclPeers peers;
  private final NcclWatchdog watchdog;
  private final NcclPairComms pairs;
  private final PointToPoint p2p;
  private final DebugLog log;
  private volatile long issued = -1;
  private volatile DdpException failure;

  private NcclProcessGroup(
      int rank,
      int size,
      GroupDevice gpu,
      String prefix,
      Store store,
      Duration timeout,
      BooleanSupplier peerGaveUp) {
    super("nccl", new GroupRank(rank, size, store, timeout), new StreamOrder(gpu, timeout), prefix);
    this.log = new DebugLog(Settings.process(), rank);
    try {
      // NCCL finds its GPU through the runtime API, which takes the context current here.
      order.contextCurrentHere();
      this.peers = new NcclPeers(store, prefix, rank, size);
      byte[] id =
          NcclIdExchange.agree(
              store, prefix + "/id", rank, timeout, () -> NcclLibrary.load().uniqueId());
      this.lib = NcclLibrary.load();
      this.comm = join(lib, peers, size, id, rank, timeout, peerGaveUp);
      this.watchdog = new NcclWatchdog(this, comm, peers, timeout, log, rank);
      GroupRank me = new GroupRank(rank, size, store, timeout);
      this.pairs = new NcclPairComms(lib, me, prefix, () -> failure != null);
      this.p2p = new PointToPoint("nccl", me, prefix, gpu, pairs, this::failure);
      watchdog.start();
    } catch (RuntimeException | Error e) {
      gpu.release();
      throw e;
    }
    if (log.enabled(DebugLog.Level.INFO)) {
      log.log(
          DebugLog.Level.INFO,
          String.format(
              "nccl group rank %d/%d on GPU %d: NCCL %s from %s",
              rank, size, gpu.index(), lib.version(), lib.path()));
    }
  }

  /**
   * Joins an nccl group: every rank calls this with the same world size and store. Collective:
   * returns once NCCL connected every rank, or fails after {@code timeout} naming the missing ones.
   *
   * @throws dev.ddp4j.ConfigException when no usable libnccl.so.2 is found (on rank 0: every rank)
   */
  public static NcclProcessGroup create(WorkerEnvironment worker, Store store, Duration timeout) {
    GroupDevice.requireGpuOf(
        worker,
        false,
        "the nccl backend runs one process per GPU and NCCL refuses two ranks on one GPU");
    long groupNumber = store.add("ddp4j/nccl/groups/rank" + worker.rank(), 1);
    String prefix = "ddp4j/nccl/" + worker.restartCount() + "/" + groupNumber;
    return new NcclProcessGroup(
        worker.rank(),
        worker.worldSize(),
        GroupDevice.open(worker.localRank()),
        prefix,
        store,
        timeout,
        () -> false);
  }

  /**
   * Joins a sub-group of another group's ranks under {@code prefix} (unique in the store, the same
   * on its members): a cuda group's hierarchical column across hosts. Collective over the members.
   *
   * <p>Every member returns the group, or every member fails ({@link NcclSubGroups}): one that
   * cannot load NCCL or connect makes the others stop their set-up and abort theirs at once.
   *
   * @param deviceIndex the CUDA ordinal of this rank's GPU (its primary context is shared)
   * @throws dev.ddp4j.ConfigException when no usable libnccl.so.2 is found
   * @throws DdpException when NCCL failed on some member (this one's communicator is aborted)
   */
  public static NcclProcessGroup subGroup(
      String prefix, int rank, int size, int deviceIndex, Store store, Duration timeout) {
    Cu.check(JCudaDriver.cuInit(0), "cuInit");
    return NcclSubGroups.join(
        store,
        prefix,
        rank,
        size,
        timeout,
        gaveUp ->
            new NcclProcessGroup(
                rank, size, GroupDevice.open(deviceIndex), prefix, store, timeout, gaveUp),
        g -> {
          g.abort(new DdpException("another member of the sub-group could not make its own"));
          g.close();
        });
  }

  /**
   * Marks this rank joined and initialises its communicator; past {@code timeout} the communicator
   * is aborted and the error names the ranks that never joined.
   */
  static NcclComm join(
      NcclLibrary lib,
      NcclPeers peers,
      int size,
      byte[] id,
      int rank,
      Duration timeout,
      BooleanSupplier peerGaveUp) {
    peers.markJoined();
    try {
      return NcclComm.init(lib, size, id, rank, System.nanoTime() + timeout.toNanos(), peerGaveUp);
    } catch (NcclComm.GaveUp e) {
      throw new DdpException(
          "nccl group on rank "
              + rank
              + ": another member could not create its communicator, so this rank aborted its"
              + " own");
    } catch (NcclComm.Late e) {
      List<Integer> missing = peers.notJoined();
      throw new DdpTimeoutException(
          "nccl group on rank "
              + rank
              + ": ncclCommInitRankConfig did not finish within "
              + timeout.toSeconds()
              + " s: "
              + (missing.isEmpty()
                  ? "every rank joined but NCCL did not connect them (NCCL_DEBUG=INFO shows its"
                      + " set-up; NCCL_SOCKET_IFNAME picks its network interface)"
                  : "missing ranks "
                      + missing
                      + " never joined (check that they started with the same WORLD_SIZE and"
                      + " store)")
              + "; the communicator was aborted",
          missing);
    }
  }

  /**
   * A subgroup's communicator, made as a cuda group's column is ({@link #subGroup}: every member
   * gets one, or all fail), on this rank's GPU.
   */
  @Override
  protected DeviceGroup subgroup(Subgroups.Membership m) {
    return subGroup(m.name() + "/nccl", m.rank(), m.size(), gpu.index(), m.store(), timeout);
  }

  /** The NCCL library this group runs on. */
  public NcclLibrary library() {
    return lib;
  }

  @Override
  protected Work runAllReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, Supplier<String> what) {
    int type = NcclTypes.dataType(in.dataType());
    int nop = NcclTypes.redOp(op, size);
    return run(
        "allReduce",
        in.stream(),
        in.count(),
        what,
        (c, s) ->
            NcclDirect.ncclAllReduce(
                in.devicePointer(), out.devicePointer(), in.count(), type, nop, c, s));
  }

  @Override
  protected Work runBroadcast(DeviceBuffer b, int root, Supplier<String> what) {
    int type = NcclTypes.dataType(b.dataType());
    long p = b.devicePointer();
    return run(
        "broadcast",
        b.stream(),
        b.count(),
        what,
        (c, s) -> NcclDirect.ncclBroadcast(p, p, b.count(), type, root, c, s));
  }

  @Override
  protected Work runAllGather(DeviceBuffer in, DeviceBuffer out, Supplier<String> what) {
    int type = NcclTypes.dataType(in.dataType());
    return run(
        "allGather",
        out.stream(),
        in.count(),
        what,
        (c, s) ->
            NcclDirect.ncclAllGather(
                in.devicePointer(), out.devicePointer(), in.count(), type, c, s));
  }

  @Override
  protected Work runReduceScatter(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, Supplier<String> what) {
    int type = NcclTypes.dataType(in.dataType());
    int nop = NcclTypes.redOp(op, size);
    return run(
        "reduceScatter",
        in.stream(),
        out.count(),
        what,
        (c, s) ->
            NcclDirect.ncclReduceScatter(
                in.devicePointer(), out.devicePointer(), out.count(), type, nop, c, s));
  }

  /**
   * Messages go on each pair's own two-rank communicator ({@link NcclPairComms}), on a stream of
   * its own after the work queued on the buffer's stream ({@link PointToPoint}).
   */
  @Override
  protected PointToPoint pointToPoint(String op) {
    requireUsable(op);
    return p2p;
  }

  /** {@code ncclReduce} in place: root's buffer gets the result, the others' stay unchanged. */
  @Override
  protected Work runReduce(DeviceBuffer b, int root, ReduceOp op, Supplier<String> what) {
    long p = b.devicePointer();
    int type = NcclTypes.dataType(b.dataType());
    int nop = NcclTypes.redOp(op, size);
    return run(
        "reduce",
        b.stream(),
        b.count(),
        what,
        (c, s) -> NcclDirect.ncclReduce(p, p, b.count(), type, nop, root, c, s));
  }

  /** Grouped sends to root and receives on root (ncclGroupStart/End); root copies its own. */
  @Override
  protected Work runGather(DeviceBuffer in, DeviceBuffer out, int root, Supplier<String> what) {
    return rootedBlocks("gather", in, out, root, true, what);
  }

  /** Grouped sends from root and receives elsewhere; root copies its own block. */
  @Override
  protected Work runScatter(DeviceBuffer in, DeviceBuffer out, int root, Supplier<String> what) {
    return rootedBlocks("scatter", out, in, root, false, what);
  }

  /**
   * Gather ({@code toRoot}: every rank's {@code block} into block {@code r} of root's {@code
   * whole}) or scatter (the other way): the peers' blocks in one NCCL group, root's own block a
   * local copy. {@code whole} is null off root.
   */
  private Work rootedBlocks(
      String op,
      DeviceBuffer block,
      DeviceBuffer whole,
      int root,
      boolean toRoot,
      Supplier<String> what) {
    int type = NcclTypes.dataType(block.dataType());
    long n = block.count();
    long bytes = block.sizeBytes();
    long mine = block.devicePointer();
    return run(
        op,
        block.stream(),
        n,
        what,
        (c, s) -> {
          if (whole == null) {
            return grouped(
                () ->
                    toRoot
                        ? NcclDirect.ncclSend(mine, n, type, root, c, s)
                        : NcclDirect.ncclRecv(mine, n, type, root, c, s));
          }
          long w = whole.devicePointer();
          if (toRoot) {
            localCopy(w + rank * bytes, mine, bytes, s);
          } else {
            localCopy(mine, w + rank * bytes, bytes, s);
          }
          return grouped(
              () ->
                  eachPeer(
                      r ->
                          toRoot
                              ? NcclDirect.ncclRecv(w + r * bytes, n, type, r, c, s)
                              : NcclDirect.ncclSend(w + r * bytes, n, type, r, c, s)));
        });
  }

  /** A send and a receive per peer in one NCCL group; the own block a local copy. */
  @Override
  protected Work runAllToAll(DeviceBuffer in, DeviceBuffer out, Supplier<String> what) {
    int type = NcclTypes.dataType(in.dataType());
    long n = in.count() / size;
    long bytes = in.sizeBytes() / size;
    return run(
        "allToAll",
        out.stream(),
        in.count(),
        what,
        (c, s) -> {
          long i = in.devicePointer();
          long o = out.devicePointer();
          localCopy(o + rank * bytes, i + rank * bytes, bytes, s);
          // Both calls of a peer run (Java evaluates both arguments); the first error is kept.
          return grouped(
              () ->
                  eachPeer(
                      r ->
                          firstError(
                              NcclDirect.ncclSend(i + r * bytes, n, type, r, c, s),
                              NcclDirect.ncclRecv(o + r * bytes, n, type, r, c, s))));
        });
  }

  /** {@code calls} between ncclGroupStart and ncclGroupEnd; the first error, else GroupEnd's. */
  private static int grouped(IntSupplier calls) {
    int rc = NcclDirect.ncclGroupStart();
    if (rc != NcclTypes.SUCCESS) {
      return rc;
    }
    int first = calls.getAsInt();
    int end = NcclDirect.ncclGroupEnd();
    return first != NcclTypes.SUCCESS ? first : end;
  }

  /** {@code call} for every peer of this rank in rank order: the first error, else success. */
  private int eachPeer(IntUnaryOperator call) {
    int first = NcclTypes.SUCCESS;
    for (int r = 0; r < size; r++) {
      if (r != rank) {
        first = firstError(first, call.applyAsInt(r));
      }
    }
    return first;
  }

  private static int firstError(int first, int rc) {
    return first != NcclTypes.SUCCESS ? first : rc;
  }

  private static void localCopy(long dst, long src, long bytes, long stream) {
    if (bytes > 0 && dst != src) {
      Cu.check(
          JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(dst), Cu.ptr(src), bytes, Cu.stream(stream)),
          "cuMemcpyDtoDAsync of this rank's own block");
    }
  }

  /** An all-reduce of one int on an internal stream: done once every rank called it. */
  @Override
  public Work barrier() {
    DeviceBuffer word = gpu.barrierWord();
    long w = word.devicePointer();
    int type = NcclTypes.dataType(word.dataType());
    return run(
        "barrier",
        word.stream(),
        1,
        () -> "barrier()",
        (c, s) -> NcclDirect.ncclAllReduce(w, w, 1, type, 0, c, s));
  }

  /**
   * Queues {@code call} (skipped for 0 elements: on every rank alike) on the stream {@code
   * streamHandle} after the previous collective, and returns its work.
   */
  private Work run(String op, long streamHandle, long count, Supplier<String> what, Call call) {
    CUstream stream = order.begin(streamHandle);
    long seq = order.nextSequence();
    if (count > 0) {
      issued = seq;
      int rc;
      // An aborted group fails here without waiting for the lock an abort in progress holds.
      requireNotAborted(op);
      synchronized (comm.lock()) {
        requireUsable(op);
        rc = call.invoke(comm.handle(), streamHandle);
      }
      if (rc != NcclTypes.SUCCESS) {
        settle(op, rc, seq, what);
      }
    } else {
      requireUsable(op);
      issued = seq;
    }
    CudaWork w = order.complete(stream, what, this::failure);
    watchdog.add(w);
    return w;
  }

  /** Waits out a call that returned ncclInProgress, or fails the group on an error. */
  private void settle(String op, int rc, long seq, Supplier<String> what) {
    try {
      comm.settle("nccl " + op, rc, System.nanoTime() + timeout.toNanos(), () -> failure != null);
    } catch (NcclComm.Late e) {
      abort(lateError(what.get(), seq, "was not queued"));
    } catch (NcclException e) {
      abort(
          new DdpException(
              what.get() + " #" + seq + " on rank " + rank + ": " + e.getMessage(), e));
    }
    requireUsable(op);
  }

  private void requireNotAborted(String op) {
    DdpException f = failure;
    if (f != null) {
      throw new DdpException(
          op
              + " on rank "
              + rank
              + ": the nccl group was aborted ("
              + f.getMessage()
              + "); close it and create a new group",
          f);
    }
  }

  private void requireUsable(String op) {
    requireNotAborted(op);
    if (comm.gone()) {
      throw new IllegalStateException(op + " on rank " + rank + ": the nccl group is closed");
    }
  }

  /** Null while the group is healthy; else why it was aborted. */
  public DdpException failure() {
    return failure;
  }

  @Override
  public long issued() {
    return issued;
  }

  @Override
  public void abortLate(CudaWork late) {
    abort(lateError(late.what(), late.sequenceNumber(), "did not finish"));
  }

  @Override
  public void abortAsync(int result) {
    String last = comm.lastError();
    abort(
        new PeerFailureException(
            -1,
            "nccl group on rank "
                + rank
                + ": NCCL reported "
                + NcclTypes.resultName(result)
                + " ("
                + lib.errorString(result)
                + (last.isEmpty() ? "" : ": " + last)
                + "), most likely a peer that died or lost its network; the communicator was"
                + " aborted"));
  }

  @Override
  public void abortForPeer(String record) {
    int peer = NcclPeers.rankOf(record);
    abort(
        new PeerFailureException(
            peer,
            "nccl group on rank "
                + rank
                + ": rank "
                + peer
                + " aborted its communicator ("
                + record.substring(record.indexOf(':') + 2)
                + "), so this rank aborted its own"));
  }

  private DdpTimeoutException lateError(String what, long seq, String verb) {
    Map<Integer, Long> behind;
    String who;
    try {
      behind = peers.behind(seq);
      if (behind.isEmpty()) {
        who =
            "every rank called it, NCCL did not complete it (NCCL_DEBUG=INFO shows its transports;"
                + " a slow or broken link?)";
      } else {
        List<String> parts = new ArrayList<>();
        behind.forEach(
            (r, last) ->
                parts.add(r + (last < 0 ? " (called none yet)" : " (last called #" + last + ")")));
        who = "ranks " + behind.keySet() + " never called it: " + String.join(", ", parts);
      }
    } catch (RuntimeException e) {
      behind = Map.of();
      who = "the store could not say which ranks are missing (" + e.getMessage() + ")";
    }
    return new DdpTimeoutException(
        what
            + " #"
            + seq
            + " "
            + verb
            + " within "
            + timeout.toSeconds()
            + " s on rank "
            + rank
            + ": "
            + who
            + "; the NCCL communicator was aborted (ncclCommAbort) so that no rank hangs",
        List.copyOf(behind.keySet()));
  }

  /** Fails the group with {@code why} (the first reason wins) and aborts the communicator. */
  private void abort(DdpException why) {
    synchronized (this) {
      if (failure != null) {
        return;
      }
      failure = why;
    }
    log.log(DebugLog.Level.WARN, why.getMessage());
    comm.abort();
    if (!(why instanceof PeerFailureException p && p.peerRank() >= 0)) {
      try {
        peers.announceAbort(why.getMessage());
      } catch (RuntimeException e) {
        log.log(DebugLog.Level.WARN, "could not tell the other ranks: " + e.getMessage());
      }
    }
  }

  /**
   * Waits for this rank's collectives (up to the timeout), then finalises and destroys the
   * communicator; an aborted group only frees what is left.
   */
  @Override
  protected void closeCollectives(List<RuntimeException> errors) {
    // Messages that never met their peer end with their communicators' abort.
    p2p.close(errors, pairs::abortAll);
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    for (CudaWork w : watchdog.unfinished()) {
      if (failure != null) {
        break; // already reported through the works
      }
      try {
        w.await(Duration.ofNanos(Math.max(0, deadlineNs - System.nanoTime())));
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    watchdog.stop();
    gpu.makeCurrent();
    if (failure == null) {
      errors.addAll(pairs.close(System.nanoTime() + timeout.toNanos()));
      String problem = comm.finalizeAndDestroy(System.nanoTime() + timeout.toNanos());
      if (problem != null) {
        errors.add(new DdpException(problem + "; the communicator was aborted"));
      }
    } else {
      pairs.abortAll();
      comm.abort();
    }
    JCudaDriver.cuStreamSynchronize(gpu.internalStream());
  }
}
