package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.Work;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.GroupDevice;
import dev.ddp4j.collectives.gpu.PointToPoint;
import dev.ddp4j.collectives.gpu.StreamOrder;
import dev.ddp4j.collectives.gpu.StreamOrderedGroup;
import dev.ddp4j.collectives.group.Subgroups;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.stall.StallInspector;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import jcuda.driver.CUstream;

/**
 * The {@code cuda} process group: one process per GPU, ddp4j's own kernels moving data GPU to GPU
 * over CUDA IPC peer memory ({@link PeerScratch}), synchronised by flags inside the kernels.
 *
 * <p>Collectives take {@link DeviceBuffer}s on this group's GPU and run on the buffer's stream:
 * after the work already queued there and before work queued after; the returned {@link Work}
 * completes through a CUDA event. Collectives are also ordered among themselves: when a call uses
 * another stream than the previous one, it first waits for the previous one's event. Messages
 * larger than a scratch slot run as several launches. Every rank must call the same collectives
 * with the same count, dtype and op (not checked across ranks: that would cost a round trip).
 *
 * <p>The context is made current once per calling thread. The group checks each call's buffers and
 * orders the calls; how the data moves is the one {@link CudaRoute} chosen at creation from the
 * planner's plan and the pairs' peer access ({@link PeerRouting}: {@code DDP4J_P2P_DISABLE}, {@code
 * DDP4J_P2P_DISABLE_PAIRS}, the driver's answer, other hosts): every kernel over IPC, the ring
 * kernels around pairs without peer access (their hops through host memory where the ring cannot
 * avoid them), the hierarchical all-reduce of GPU islands at the sizes the plan gives it, or, with
 * a hop between hosts, the whole group host-staged ({@link StagedPath}), all with the same stream
 * and Work contract.
 */
public final class CudaProcessGroup extends StreamOrderedGroup {

  private final String prefix;

  /** How every collective moves its data, chosen once from the plan ({@link CudaRoutes}). */
  private final CudaRoute route;

  /** Ends each collective with its work; what close waits for. */
  private final IssuedWorks works;

  /** What the planner decided for this group, the same on every rank (hash-checked). */
  private final Plan plan;

  /** The plan's kernels and shapes by launch size. */
  private final PlanChooser planChooser;

  /** Names the ranks that hold a collective up, while the others wait ({@code stall}). */
  private final StallInspector stalls;

  /** What its subgroups are made with (this rank's GPU, budget and settings). */
  private final CudaGroupSetup.Basis basis;

  /** Reduce, gather, scatter and all-to-all over the route or its mailbox. */
  private final RootedCollectives rooted;

  /** Point-to-point messages; null where the route has no mailbox (some pair lacks a peer path). */
  private final PointToPoint p2p;

  private CudaProcessGroup(CudaGroupSetup.Parts parts) {
    super("cuda", parts.member(), parts.order(), parts.prefix());
    this.basis = parts.basis();
    this.prefix = parts.prefix();
    this.route = parts.route();
    this.works = parts.works();
    this.plan = parts.plan();
    this.planChooser = parts.planChooser();
    this.stalls = parts.stalls();
    this.rooted = new RootedCollectives(rank, size, route, works);
    MailboxCollectives mailbox = route.mailbox();
    this.p2p =
        mailbox == null
            ? null
            : new PointToPoint("cuda", parts.member(), prefix, gpu, mailbox.mailbox(), null);
  }

  /**
   * Joins a cuda group: every rank calls this with the same world size and store. Collective:
   * returns once every rank published its scratch, or fails after {@code timeout}.
   *
   * @param settings the process's ddp4j variables ({@code DDP4J_CUDA_SCRATCH_MIB}: the most device
   *     memory the scratch may take, and the rest)
   */
  public static CudaProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return create(
        worker, store, timeout, null, CudaSettings.scratchBudgetBytes(settings), settings);
  }

  /**
   * As above, with the kernel per launch picked by {@code chooser} instead of the plan's {@link
   * PlanChooser} (null; the GPU tests force each algorithm in turn) and the scratch budget given.
   */
  static CudaProcessGroup create(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      AllReduceChooser chooser,
      long scratchBudgetBytes,
      Settings settings) {
    CudaGroupSetup.Placement gpu = CudaGroupSetup.placementOf(worker, settings);
    CudaProcessGroup g =
        new CudaProcessGroup(
            CudaGroupSetup.open(
                worker, store, timeout, chooser, scratchBudgetBytes, settings, gpu));
    DebugLog log = new DebugLog(settings, g.rank);
    if (log.enabled(DebugLog.Level.INFO)) {
      log.log(
          DebugLog.Level.INFO,
          String.format(
              "cuda group rank %d/%d on GPU %d: %d MiB of extra device memory (scratch %s)",
              g.rank, g.size, g.deviceIndex(), g.extraDeviceMemoryBytes() >> 20, g.route));
    }
    return g;
  }

  /**
   * A cuda group of the members on this rank's GPU: its own peer directory, plan over the parent's
   * topology slice of its members, scratch and route, as any cuda group's ({@link CudaGroupSetup}).
   */
  @Override
  protected DeviceGroup subgroup(Subgroups.Membership m) {
    new DebugLog(basis.settings(), rank).log(DebugLog.Level.INFO, m.describe());
    return new CudaProcessGroup(
        CudaGroupSetup.open(
            m.worker(basis.worker()),
            m.store(),
            timeout,
            null,
            basis.scratchBudgetBytes(),
            basis.settings(),
            basis.placement()));
  }

  /** Device memory this group allocated on its GPU (scratch and the barrier word). */
  public long extraDeviceMemoryBytes() {
    return route.deviceBytes() + GroupDevice.BARRIER_BYTES;
  }

  /** The most bytes one kernel launch reduces; larger messages run as several launches. */
  @Override
  public long maxLaunchBytes() {
    return route.maxLaunchBytes();
  }

  /**
   * How allReduce runs in this group: {@code direct} (every pair has a peer path), {@code ring
   * 0-2-1-3} (around pairs without one; the other collectives too), {@code staged}, or {@code
   * local} on one rank.
   */
  public String allReduceRoute() {
    return route.name();
  }

  /** The plan this group runs, the same on every rank. */
  public Plan plan() {
    return plan;
  }

  /** The plan's choice of kernel and shape per launch (what runs unless a chooser was given). */
  AllReduceChooser planChooser() {
    return planChooser;
  }

  @Override
  protected Work runAllReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, Supplier<String> what) {
    return route.allReduce(in, out, op, begin(in.stream()), what);
  }

  @Override
  protected Work runBroadcast(DeviceBuffer b, int root, Supplier<String> what) {
    return route.broadcast(b, root, begin(b.stream()), what);
  }

  @Override
  protected Work runAllGather(DeviceBuffer in, DeviceBuffer out, Supplier<String> what) {
    return route.allGather(in, out, begin(out.stream()), what);
  }

  @Override
  protected Work runReduceScatter(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, Supplier<String> what) {
    return route.reduceScatter(in, out, op, begin(in.stream()), what);
  }

  @Override
  public Work barrier() {
    DeviceBuffer word = gpu.barrierWord();
    CUstream stream = begin(word.stream());
    return route.barrier(word, stream, () -> "barrier()");
  }

  /**
   * Messages go over the peer's IPC mailbox with the copy engine ({@link PeerMailbox}), on a stream
   * of this pair's own after the work queued on the buffer's stream ({@link PointToPoint}).
   *
   * @throws UnsupportedOperationException where some pair of the group has no peer path and the
   *     group is not host-staged
   */
  @Override
  protected PointToPoint pointToPoint(String op) {
    if (p2p == null) {
      throw new UnsupportedOperationException(
          op
              + " on rank "
              + rank
              + ": this cuda group runs the route '"
              + route.name()
              + "', where some pair has no peer path, and device point-to-point runs over peer"
              + " memory only; send host buffers (they go through the group's cpu half)");
    }
    return p2p;
  }

  /** An all-reduce into root's buffer (a temporary elsewhere), {@link RootedCollectives}. */
  @Override
  protected Work runReduce(DeviceBuffer b, int root, ReduceOp op, Supplier<String> what) {
    return rooted.reduce(b, root, op, begin(b.stream()), what);
  }

  @Override
  protected Work runGather(DeviceBuffer in, DeviceBuffer out, int root, Supplier<String> what) {
    return rooted.gather(in, out, root, begin(in.stream()), what);
  }

  @Override
  protected Work runScatter(DeviceBuffer in, DeviceBuffer out, int root, Supplier<String> what) {
    return rooted.scatter(in, out, root, begin(out.stream()), what);
  }

  @Override
  protected Work runAllToAll(DeviceBuffer in, DeviceBuffer out, Supplier<String> what) {
    return rooted.allToAll(in, out, begin(out.stream()), what);
  }

  /** Orders this call after the previous one ({@link StreamOrder}), retiring finished works. */
  private CUstream begin(long streamHandle) {
    CUstream stream = order.begin(streamHandle);
    works.retireSome();
    return stream;
  }

  /**
   * Waits for this rank's collectives, meets every other rank (so no peer still writes into this
   * rank's scratch), then frees the scratch and unmaps the peers'.
   */
  @Override
  protected void closeCollectives(List<RuntimeException> errors) {
    gpu.makeCurrent();
    MailboxCollectives mailbox = route.mailbox();
    if (p2p != null) {
      // A message that never met its peer leaves its stream waiting on the mailbox's flags.
      p2p.close(errors, mailbox.mailbox()::releaseWaits);
    }
    int before = errors.size();
    works.awaitAll(timeout, errors);
    if (errors.size() > before && mailbox != null) {
      mailbox.mailbox().releaseWaits(); // a collective's block that never came, likewise
    }
    stalls.close();
    try {
      store.set(prefix + "/closed/" + rank, new byte[] {1});
      List<String> keys = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        keys.add(prefix + "/closed/" + r);
      }
      store.wait(keys, timeout);
    } catch (RuntimeException e) {
      errors.add(e);
    }
    gpu.makeCurrent();
    errors.addAll(route.close());
  }
}
