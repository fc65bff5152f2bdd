package dev.ddp4j.collectives.cpu;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.CollectiveMeta.Kind;
import dev.ddp4j.collectives.group.Subgroups;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanCompiler;
import dev.ddp4j.collectives.plan.PlanSummary;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.reduce.HostMemory;
import dev.ddp4j.collectives.reduce.Reductions;
import dev.ddp4j.collectives.stall.StallInspector;
import dev.ddp4j.collectives.transport.HostLinks;
import dev.ddp4j.collectives.transport.PieceTag;
import dev.ddp4j.collectives.transport.SharedHostMemory;
import dev.ddp4j.collectives.transport.TransportConfig;
import dev.ddp4j.spi.CollectiveChecks;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code cpu} {@link ProcessGroup}. Calls check their arguments, take the next sequence number
 * and queue a {@link CpuWork}; the queue runs in order ({@link WorkQueue}: on the awaiting caller's
 * thread or the progress thread), so collectives complete in issue order with any number in flight.
 * The first failure (timeout, dead peer, mismatch) is told to every peer and breaks the group:
 * later collectives fail at once with that cause, as NCCL's communicator abort does.
 */
public final class CpuProcessGroup implements ProcessGroup {

  private static final AtomicInteger GROUPS_IN_THIS_JVM = new AtomicInteger();

  private final int rank;
  private final int size;
  private final Store store;
  private final Duration timeout;
  private final HostLinks links;
  private final CpuCollectives collectives;
  private final FlightRecorder recorder;
  private final DebugLog log;
  private final WorkQueue queue;
  private final PieceTag tag = new PieceTag();
  private final Plan plan;
  private final boolean crossMemory; // large all-reduces may read peers with process_vm_readv
  private final long sharedMinBytes;
  private final StallInspector stalls;
  // What a subgroup is made with: this rank's worker and options (subgroups plan for themselves).
  private final WorkerEnvironment worker;
  private final CpuGroupOptions options;
  private final Subgroups subgroups;
  private final PairMessages messages; // isend / irecv, on a thread and connections of their own
  private long nextSequence;
  private volatile boolean closed;
  // The store connection this group closes last, when it owns it (see closingStore).
  private Store ownedStore;
  private volatile Throwable broken;

  private CpuProcessGroup(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      HostLinks links,
      TransportConfig config,
      Plan plan,
      boolean directAllowed,
      DebugLog log,
      CpuGroupOptions options,
      StallInspector stalls,
      String prefix) {
    this.rank = worker.rank();
    this.worker = worker;
    this.options = options;
    this.stalls = stalls;
    this.size = worker.worldSize();
    this.store = store;
    this.timeout = timeout;
    this.links = links;
    this.log = log;
    this.recorder = new FlightRecorder(options.flightRecorderEntries());
    this.plan = plan;
    this.sharedMinBytes = config.sharedMinBytes(size);
    ScheduleCache schedules = new ScheduleCache(rank, plan, config.channels(), config.slotBytes());
    DirectAllReduce direct =
        links.direct() == null || !directAllowed
            ? null
            : new DirectAllReduce(links, links.direct(), sharedMinBytes);
    this.crossMemory = direct != null && links.direct().crossMemory();
    ProgramRunner runner = new ProgramRunner(links, direct == null ? null : links.direct());
    this.collectives = new CpuCollectives(rank, size, schedules, runner, direct);
    this.queue = new WorkQueue("ddp4j-cpu-progress-rank" + rank);
    this.subgroups = new Subgroups(store, prefix, rank, size, timeout);
    this.messages = new PairMessages(links, timeout, "ddp4j-cpu-p2p-rank" + rank);
  }

  /** Joins the group: connects transports to every peer (collective over the group). */
  static CpuProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, CpuGroupOptions options) {
    // Every rank creates its groups in the same order, so the n-th group of each JVM is one group.
    return create(worker, store, timeout, options, "g" + GROUPS_IN_THIS_JVM.getAndIncrement());
  }

  /**
   * As above, for a group named {@code groupName} (equal on all its ranks, unique in the store).
   * The cuda backend's host-staged path runs its host collectives through such a group.
   */
  public static CpuProcessGroup create(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      CpuGroupOptions options,
      String groupName) {
    TransportConfig config = options.transport();
    String prefix = "ddp4j/cpu/" + worker.restartCount() + "/" + groupName + "/";
    DebugLog log = new DebugLog(options.logLevel(), worker.rank());
    // Started first, so every rank's snapshot is in the store before any rank's first collective.
    StallInspector stalls =
        StallInspector.start(
            "cpu group " + groupName,
            store,
            prefix,
            worker.rank(),
            worker.worldSize(),
            options.stallWarnMs(),
            log);
    HostLinks links;
    try {
      links = HostLinks.connect(store, prefix, worker.rank(), worker.worldSize(), config, timeout);
    } catch (RuntimeException e) {
      stalls.close();
      throw e;
    }
    PlannerOptions planner = CpuPlanning.options(options.forced(), config.channels(), log);
    Plan plan;
    try {
      plan =
          CpuPlanning.agree(
              store, prefix, worker.rank(), links.nodes(), planner, Path.of("/sys"), timeout, log);
    } catch (RuntimeException e) {
      links.close();
      stalls.close();
      throw e;
    }
    Reductions.warmUpInBackground();
    // Direct reads (shared host memory, cross-memory attach) are an all-reduce algorithm of their
    // own: they run only where the plan chooses (or DDP4J_ALGO=ring), not under a forced tree,
    // one-shot, two-shot or hierarchical.
    boolean directAllowed = planner.forced().map(a -> a == Algorithm.RING).orElse(true);
    CpuProcessGroup group =
        new CpuProcessGroup(
            worker,
            store,
            timeout,
            links,
            config,
            plan,
            directAllowed,
            log,
            options,
            stalls,
            prefix);
    group.logRoutes(config);
    return group;
  }

  private void logRoutes(TransportConfig config) {
    if (links.cmaRefused()) {
      // Asked for, a refusal is a warning; under the default window the rings are nearly as fast.
      log.log(
          config.cmaRequested() ? DebugLog.Level.WARN : DebugLog.Level.INFO,
          "cross-memory attach off, all-reduces use the shared-memory rings: "
              + links.cmaDecision());
    } else if (links.cmaDecision() != null && log.enabled(DebugLog.Level.INFO)) {
      log.log(DebugLog.Level.INFO, "cross-memory attach " + links.cmaDecision());
    }
    if (!log.enabled(DebugLog.Level.INFO) || size == 1) {
      return;
    }
    int[][] rings = PlanCompiler.rings(plan, config.channels());
    for (int c = 0; c < rings.length; c++) {
      int next = RingOrder.next(rings[c], rank);
      String route = links.route(next);
      if (crossMemory) {
        route = route.replace("SHM", "SHM/CMA");
      }
      log.log(
          DebugLog.Level.INFO,
          String.format(
              "Channel %02d/%02d : %d[%d] -> %d[%d] via %s",
              c, rings.length, rank, rank, next, next, route));
    }
    log.log(DebugLog.Level.INFO, "all-reduce algorithm by size: " + PlanSummary.bySize(plan));
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public String backend() {
    return "cpu";
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Store store() {
    return store;
  }

  /**
   * Where every rank shares one node: a block of the group's shared host memory, which every rank
   * maps, so all-reduces over it (from {@code DDP4J_SHARED_MIN_BYTES}) read peers' bytes in place.
   * Elsewhere the default: plain direct memory.
   */
  @Override
  public HostBuffer allocateHost(long count, DataType type) {
    SharedHostMemory shared = links.sharedMemory();
    if (shared == null) {
      return ProcessGroup.super.allocateHost(count, type);
    }
    if (closed) {
      throw new IllegalStateException(
          "process group of rank " + rank + " is closed (expected: allocateHost before close())");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count : " + count + " (expected: >= 0)");
    }
    long bytes = type.bytesFor(count);
    ByteBuffer block = shared.allocate(bytes);
    if (log.enabled(DebugLog.Level.INFO)) {
      log.log(
          DebugLog.Level.INFO,
          "shared host memory #"
              + (shared.allocations() - 1)
              + ": "
              + bytes
              + " bytes mapped by all "
              + size
              + " ranks; all-reduces over it "
              + (sharedMinBytes == TransportConfig.CMA_OFF
                  ? "never read peers in place (DDP4J_SHARED_MIN_BYTES=off)"
                  : "from " + sharedMinBytes + " bytes read peers' buffers in place"));
    }
    return HostBuffer.of(block, type);
  }

  @Override
  public Work allReduce(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    CollectiveChecks.sameShape("allReduce", input, output);
    HostMemory in = host("allReduce", input);
    HostMemory out = host("allReduce", output);
    int meta = CollectiveMeta.pack(Kind.ALL_REDUCE, input.dataType(), op, -1);
    // Read here, in issue order: allocations are collective, so every rank sees the same.
    boolean shared = links.sharedMemory() != null && links.sharedMemory().hasBlocks();
    return submit(
        meta, input.count(), (t, d, w) -> collectives.allReduce(in, out, op, shared, t, d, w));
  }

  @Override
  public Work broadcast(TensorBuffer buffer, int root) {
    CollectiveChecks.root("broadcast", root, size);
    HostMemory mem = host("broadcast", buffer);
    int meta = CollectiveMeta.pack(Kind.BROADCAST, buffer.dataType(), null, root);
    return submit(meta, buffer.count(), (t, d, w) -> collectives.broadcast(mem, root, t, d, w));
  }

  @Override
  public Work allGather(TensorBuffer input, TensorBuffer output) {
    CollectiveChecks.gathered("allGather", input, output, size);
    HostMemory in = host("allGather", input);
    HostMemory out = host("allGather", output);
    int meta = CollectiveMeta.pack(Kind.ALL_GATHER, input.dataType(), null, -1);
    return submit(meta, input.count(), (t, d, w) -> collectives.allGather(in, out, t, d, w));
  }

  @Override
  public Work reduceScatter(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    CollectiveChecks.gathered("reduceScatter", output, input, size);
    HostMemory in = host("reduceScatter", input);
    HostMemory out = host("reduceScatter", output);
    int meta = CollectiveMeta.pack(Kind.REDUCE_SCATTER, input.dataType(), op, -1);
    return submit(
        meta, output.count(), (t, d, w) -> collectives.reduceScatter(in, out, op, t, d, w));
  }

  @Override
  public Work barrier() {
    int meta = CollectiveMeta.pack(Kind.BARRIER, DataType.INT8, null, -1);
    return submit(meta, 0, (t, d, w) -> collectives.barrier(t, d, w));
  }

  /**
   * A cpu group of {@code ranks} over a view of this group's store, which connects its own
   * transports and plans for its own members ({@link Subgroups}).
   */
  @Override
  public Optional<ProcessGroup> newGroup(int... ranks) {
    requireOpen("newGroup");
    return subgroups.newGroup(ranks, this::subgroup).map(ProcessGroup.class::cast);
  }

  @Override
  public Optional<ProcessGroup> split(int color, int key) {
    requireOpen("split");
    return subgroups.split(color, key, this::subgroup).map(ProcessGroup.class::cast);
  }

  private CpuProcessGroup subgroup(Subgroups.Membership m) {
    log.log(DebugLog.Level.INFO, m.describe()); // before its route lines
    return create(m.worker(worker), m.store(), timeout, options, m.name());
  }

  private void requireOpen(String op) {
    if (closed) {
      throw new IllegalStateException(
          op + " on rank " + rank + ": the process group is closed (expected: before close())");
    }
  }

  private static HostMemory host(String op, TensorBuffer buffer) {
    if (!(buffer instanceof HostBuffer)) {
      throw new IllegalArgumentException(
          op
              + ": the cpu backend takes HostBuffers, got "
              + buffer
              + " (use the cuda backend for device buffers, or copy to host memory)");
    }
    return HostMemory.of((HostBuffer) buffer);
  }

  /** A collective body: (tag, deadlineNs, description) -> runs it where the queue runs. */
  private interface Body {
    void run(PieceTag tag, long deadlineNs, String what);
  }

  private synchronized Work submit(int meta, long count, Body body) {
    if (closed) {
      throw new IllegalStateException(
          "process group of rank " + rank + " is closed (expected: collectives before close())");
    }
    long seq = nextSequence++;
    String what = CollectiveMeta.describe(meta, count);
    CpuWork[] self = new CpuWork[1];
    CpuWork work =
        new CpuWork(
            seq,
            what,
            timeout,
            () -> closed ? List.of() : links.notStarted(seq),
            () -> execute(self[0], meta, count, body, what),
            queue);
    self[0] = work;
    recorder.queued(seq, what, System.nanoTime());
    stalls.issued(work, () -> what);
    queue.add(work);
    return work;
  }

  private void execute(CpuWork work, int meta, long count, Body body, String what) {
    long seq = work.sequenceNumber();
    if (broken != null) {
      work.fail(
          new DdpException(
              what
                  + " #"
                  + seq
                  + " on rank "
                  + rank
                  + " not run: this group failed earlier ("
                  + broken.getMessage()
                  + "); create a new group",
              broken));
      recorder.ended(seq, false, System.nanoTime());
      return;
    }
    long start = System.nanoTime();
    recorder.started(seq, start);
    links.started(seq);
    try {
      body.run(tag.set(seq, count, meta), start + timeout.toNanos(), what);
      recorder.ended(seq, true, System.nanoTime());
      if (log.enabled(DebugLog.Level.TRACE)) {
        log.log(
            DebugLog.Level.TRACE,
            what + " #" + seq + " done in " + (System.nanoTime() - start) / 1000 + " us");
      }
      work.complete();
    } catch (RuntimeException | Error e) {
      recorder.ended(seq, false, System.nanoTime());
      broken = e;
      links.failed(seq, String.valueOf(e.getMessage()));
      log.log(
          DebugLog.Level.WARN,
          what + " #" + seq + " failed: " + e.getMessage() + "\n" + recorder.dump(rank));
      work.fail(e);
    }
  }

  /**
   * How many all-reduces of this rank read peers' buffers with cross-memory attach (so tests and
   * benchmarks can tell that it did not silently fall back to the rings). Read after a collective
   * completed, from the thread that awaited it.
   */
  public long crossMemoryAllReduces() {
    return collectives.crossMemoryRuns();
  }

  /**
   * How many all-reduces of this rank read peers' buffers through the mappings of shared host
   * memory; read as {@link #crossMemoryAllReduces()}.
   */
  public long sharedMemoryAllReduces() {
    return collectives.sharedRuns();
  }

  /** The flight recorder's dump: the last collectives of this rank with state and timings. */
  public String flightRecord() {
    return recorder.dump(rank);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    // Subgroups first: a subgroup's member may still wait for this rank's subgroup collectives.
    List<RuntimeException> subgroupErrors = subgroups.closeAll();
    // Finish what was queued (the contract: close waits for collectives in flight), then stop.
    boolean stopped = queue.finishAndStop(timeout.toMillis() + 2_000);
    RuntimeException messagesLeft = null;
    try {
      messages.close();
    } catch (RuntimeException e) {
      messagesLeft = e; // its thread still touches the links: leave them open, as below
      stopped = false;
    }
    stalls.close(); // after the wait above, which it may have to explain
    for (CpuWork left; (left = queue.poll()) != null; ) {
      left.fail(new DdpException(left + ": the group was closed before it ran"));
    }
    if (messagesLeft != null) {
      log.log(DebugLog.Level.WARN, messagesLeft.getMessage() + "; transports left open");
      throw messagesLeft;
    }
    if (!stopped) {
      // Unmapping memory the progress thread still touches would crash the JVM: leak it instead.
      log.log(DebugLog.Level.WARN, "progress thread still busy at close; transports left open");
      throw new DdpTimeoutException(
          "close() on rank "
              + rank
              + ": collectives still running after "
              + timeout.toSeconds()
              + " s\n"
              + recorder.dump(rank));
    }
    collectives.close();
    links.close();
    if (ownedStore != null) {
      ownedStore.close();
    }
    if (!subgroupErrors.isEmpty()) {
      RuntimeException first = subgroupErrors.get(0);
      subgroupErrors.subList(1, subgroupErrors.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  /**
   * Makes {@link #close()} also close the group's store, last: for the group a provider hands to
   * {@code Ddp.init}, which opened the connection for it (inner groups over a shared store do not).
   */
  CpuProcessGroup closingStore() {
    ownedStore = store;
    return this;
  }

  /** Point-to-point: on the group's {@link PairMessages}, outside the collective sequence. */
  @Override
  public synchronized Work isend(TensorBuffer buffer, int dst) {
    return messages.isend(pointToPoint("isend", buffer, dst), dst);
  }

  @Override
  public synchronized Work irecv(TensorBuffer buffer, int src) {
    return messages.irecv(pointToPoint("irecv", buffer, src), src);
  }

  private HostMemory pointToPoint(String op, TensorBuffer buffer, int peer) {
    CollectiveChecks.peer(op, peer, rank, size);
    HostMemory mem = host(op, buffer);
    requireOpen(op);
    return mem;
  }

  @Override
  public Work reduce(TensorBuffer buffer, int root, ReduceOp op) {
    CollectiveChecks.root("reduce", root, size);
    HostMemory mem = host("reduce", buffer);
    int meta = CollectiveMeta.pack(Kind.REDUCE, buffer.dataType(), op, root);
    return submit(meta, buffer.count(), (t, d, w) -> collectives.reduce(mem, root, op, t, d, w));
  }

  @Override
  public Work gather(TensorBuffer input, TensorBuffer output, int root) {
    CollectiveChecks.gather(input, output, root, rank, size);
    HostMemory in = host("gather", input);
    HostMemory out = rank == root ? host("gather", output) : null;
    int meta = CollectiveMeta.pack(Kind.GATHER, input.dataType(), null, root);
    return submit(meta, input.count(), (t, d, w) -> collectives.gather(in, out, root, t, d, w));
  }

  @Override
  public Work scatter(TensorBuffer input, TensorBuffer output, int root) {
    CollectiveChecks.scatter(input, output, root, rank, size);
    HostMemory in = rank == root ? host("scatter", input) : null;
    HostMemory out = host("scatter", output);
    int meta = CollectiveMeta.pack(Kind.SCATTER, output.dataType(), null, root);
    return submit(meta, output.count(), (t, d, w) -> collectives.scatter(in, out, root, t, d, w));
  }

  @Override
  public Work allToAll(TensorBuffer input, TensorBuffer output) {
    CollectiveChecks.allToAll(input, output, size);
    HostMemory in = host("allToAll", input);
    HostMemory out = host("allToAll", output);
    int meta = CollectiveMeta.pack(Kind.ALL_TO_ALL, input.dataType(), null, -1);
    return submit(meta, input.count(), (t, d, w) -> collectives.allToAll(in, out, t, d, w));
  }
}
