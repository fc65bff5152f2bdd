package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.InterHost;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.Planner;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.plan.Sizes;
import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The hierarchical all-reduce of GPUs in islands (NVLink pairs joined by PCIe or the socket link,
 * or the hosts of a multi-node job), at the sizes the plan runs it; everything else goes the route
 * it wraps ({@link PeerRoute} on one host, {@link StagedRoute} across hosts).
 *
 * <p>Each rank belongs to two sub-groups with scratch of their own: its island (k ranks, every pair
 * with peer access) and its "column", the ranks at the same position of every island (m ranks). On
 * one host the column is joined however the topology allows (IPC over PCIe or SYS, or the ring
 * through host memory where pairs lack peer access), planned by the one planner over its own
 * devices ({@link PeerColumn}); across hosts it is an NCCL communicator of its ranks ({@link
 * NcclColumn}) or the cpu backend's sockets ({@link StagedColumn}), as the plan's {@link
 * dev.ddp4j.collectives.plan.InterHost} says ({@code DDP4J_INTER_HOST}). A message runs in the
 * plan's chunks for its size (the pipeline the cost model chose), each chunk in three phases; the
 * column's phase runs on a stream of its own so that the slow link carries chunk i while the island
 * reduces chunk i + 1:
 *
 * <pre>
 *   caller stream: RS(0) RS(1) [wait X(0)] AG(0) RS(2) [wait X(1)] AG(1) ... [wait X(last)] AG(last)
 *   column stream:  [wait RS(i)] all-reduce of block i across the islands, record X(i)
 * </pre>
 *
 * RS is the island's reduce-scatter into block {@code islandRank} of the chunk (in place), AG its
 * all-gather. Every rank queues the same launches in the same order on each sub-group, so the
 * kernels' flags agree. AVG averages inside the island and then across the islands, which is the
 * average over all ranks because islands are of equal size (for floating point; an integer AVG runs
 * the flat route, whose one division truncates once). Counts that k does not divide leave a tail of
 * fewer than k elements, which runs the same phases through a k-element buffer.
 */
final class HierarchicalRoute implements CudaRoute {

  private final CudaRoute flat;
  private final Plan plan;
  private final int islandSize;
  private final int islandRank;
  private final String name;
  private final AllReduceLauncher islandLauncher;
  private final CollectiveLauncher island;
  private final ColumnPath column;
  private final CUstream columnStream = new CUstream();
  private final CUevent scattered = new CUevent();
  private final CUevent[] reduced = {new CUevent(), new CUevent()};
  private final CUdeviceptr tail = new CUdeviceptr();
  private final CudaRoute.Completion done;

  private HierarchicalRoute(
      CudaRoute flat,
      Plan plan,
      int islandSize,
      int islandRank,
      String name,
      AllReduceLauncher islandLauncher,
      CollectiveLauncher island,
      ColumnPath column,
      CudaRoute.Completion done) {
    this.flat = flat;
    this.plan = plan;
    this.islandSize = islandSize;
    this.islandRank = islandRank;
    this.name = name;
    this.islandLauncher = islandLauncher;
    this.island = island;
    this.column = column;
    this.done = done;
  }

  /**
   * Opens the island and column sub-groups of this rank (collective over each sub-group).
   *
   * @param plan the whole group's plan, with its islands
   * @param topology what {@code plan} was made from (peer access included)
   */
  static HierarchicalRoute open(
      CudaRoutes.Group g,
      CudaRoute flat,
      Plan plan,
      Topology topology,
      PeerRouting routing,
      PlannerOptions options,
      long scratchBudgetBytes) {
    List<int[]> islands = plan.islands();
    int k = islands.get(0).length;
    int m = islands.size();
    int myIsland = -1;
    int pos = -1;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < k; j++) {
        if (islands.get(i)[j] == g.rank()) {
          myIsland = i;
          pos = j;
        }
      }
    }
    int[] columnRanks = new int[m];
    for (int i = 0; i < m; i++) {
      columnRanks[i] = islands.get(i)[pos];
    }
    // Island and column kernels run at once on this GPU: each gets half of the resident channels.
    int half = Math.max(1, options.maxChannels() / 2);
    PlannerOptions sub =
        new PlannerOptions(
            Optional.empty(), Math.min(options.minChannels(), half), half, options.cost());
    Plan islandPlan = subPlan(topology, plan, islands.get(myIsland), sub);
    PeerRouting columnRouting = routing.among(columnRanks);
    boolean acrossHosts = !columnRouting.oneHost();
    long budget = acrossHosts ? scratchBudgetBytes : scratchBudgetBytes / 2;
    AllReduceLauncher islandLauncher =
        subLauncher(
            g,
            "island" + myIsland,
            pos,
            k,
            islandPlan,
            routing.among(islands.get(myIsland)),
            budget);
    ColumnPath column;
    if (acrossHosts) {
      try {
        column = betweenHosts(g, plan, pos, myIsland, m, columnRanks);
      } catch (RuntimeException e) {
        islandLauncher.close(); // the group fails: free the island's scratch first
        throw e;
      }
    } else {
      Plan columnPlan = subPlan(topology, plan, columnRanks, sub);
      column =
          new PeerColumn(
              subLauncher(g, "column" + pos, myIsland, m, columnPlan, columnRouting, budget),
              columnText(columnRanks, columnPlan, columnRouting));
    }
    CollectiveLauncher island =
        new CollectiveLauncher(pos, k, g.timeout(), islandPlan.wideChannels(), islandLauncher);
    String name =
        flat.name()
            + "; hierarchical from "
            + Sizes.human(plan.smallestBytesOf(Algorithm.HIERARCHICAL))
            + ": islands "
            + islandsText(islands)
            + ", across them "
            + column.describe();
    HierarchicalRoute r =
        new HierarchicalRoute(flat, plan, k, pos, name, islandLauncher, island, column, g.done());
    Cu.check(
        JCudaDriver.cuStreamCreate(r.columnStream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    for (CUevent e : List.of(r.scattered, r.reduced[0], r.reduced[1])) {
      Cu.check(
          JCudaDriver.cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    }
    Cu.check(JCudaDriver.cuMemAlloc(r.tail, 8L * k), "cuMemAlloc of the tail buffer");
    return r;
  }

  /**
   * The column across hosts: over NCCL where the plan says so and the communicator comes up, else
   * over the sockets. With {@code DDP4J_INTER_HOST=auto} a communicator that fails falls back with
   * one WARN; with {@code nccl} forced, the group fails on one line.
   */
  private static ColumnPath betweenHosts(
      CudaRoutes.Group g, Plan plan, int pos, int myIsland, int m, int[] columnRanks) {
    if (plan.interHost() == InterHost.NCCL) {
      try {
        return NcclColumn.open(g, pos, myIsland, m);
      } catch (RuntimeException e) {
        String what =
            "hierarchical column "
                + pos
                + " (ranks "
                + java.util.Arrays.toString(columnRanks)
                + ") could not create its NCCL communicator: "
                + firstLine(e.getMessage());
        if (InterHostChoice.setting(g.settings()) == InterHostChoice.Setting.NCCL) {
          throw new DdpException(
              InterHostChoice.VAR
                  + "=nccl: "
                  + what
                  + " (fix: NCCL_DEBUG=INFO shows NCCL's set-up; or "
                  + InterHostChoice.VAR
                  + "=socket)");
        }
        new DebugLog(g.settings(), g.rank())
            .log(DebugLog.Level.WARN, what + "; the column runs over NET/socket instead");
      }
    }
    return StagedColumn.open(g, pos, myIsland, m);
  }

  private static String firstLine(String s) {
    String m = String.valueOf(s);
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /** The column's failure (between hosts), which fails the group's works; null while healthy. */
  @Override
  public DdpException failure() {
    return column.failure();
  }

  /** The plan of a sub-group: the one planner over its members' devices, no hierarchy inside. */
  private static Plan subPlan(Topology t, Plan whole, int[] members, PlannerOptions o) {
    int[] devices = new int[members.length];
    for (int i = 0; i < members.length; i++) {
      devices[i] = whole.devices()[members[i]];
    }
    Set<Algorithm> supported = EnumSet.copyOf(Algorithm.onCuda());
    supported.remove(Algorithm.HIERARCHICAL);
    Set<Algorithm> allowed = EnumSet.copyOf(Algorithm.chosenOnCuda());
    allowed.remove(Algorithm.HIERARCHICAL);
    return Planner.plan(t, devices, o, supported, allowed);
  }

  /**
   * The launcher of a sub-group: the direct kernels where its plan allows them, else the ring in
   * the members' order (islands are ordered by their lowest rank, so every rank and {@code
   * RouteLines#hierarchical} see the same ring), a hop without peer access through host memory.
   */
  private static AllReduceLauncher subLauncher(
      CudaRoutes.Group g,
      String name,
      int rank,
      int size,
      Plan plan,
      PeerRouting routing,
      long budget) {
    int[] ring = new int[size];
    for (int i = 0; i < size; i++) {
      ring[i] = i;
    }
    boolean ringOnly = !plan.directOk();
    return AllReduceLauncher.open(
        rank,
        size,
        g.device(),
        g.store(),
        g.prefix() + "/" + name,
        g.timeout(),
        new PlanChooser(plan),
        new AllReduceKernels(),
        budget,
        List.of(ring),
        ringOnly,
        ringOnly && !routing.peerHop((rank + size - 1) % size, rank),
        ringOnly && !routing.peerHop(rank, (rank + 1) % size));
  }

  /**
   * How a column crosses: {@code direct}, or {@code ring 0-2} with its hops through host memory.
   */
  private static String columnText(int[] members, Plan plan, PeerRouting routing) {
    if (plan.directOk()) {
      return "direct";
    }
    List<String> hops = new ArrayList<>();
    StringBuilder ring = new StringBuilder("ring ");
    for (int i = 0; i < members.length; i++) {
      ring.append(i == 0 ? "" : "-").append(members[i]);
      int next = (i + 1) % members.length;
      if (!routing.peerHop(i, next)) {
        hops.add(members[i] + "->" + members[next]);
      }
    }
    return ring + (hops.isEmpty() ? "" : " (" + String.join(", ", hops) + " via host memory)");
  }

  private static String islandsText(List<int[]> islands) {
    List<String> out = new ArrayList<>();
    for (int[] i : islands) {
      out.add(java.util.Arrays.toString(i));
    }
    return String.join(" ", out);
  }

  @Override
  public Work allReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream, Supplier<String> what) {
    // An integer AVG truncates: the island's average of truncated averages is not the truncated
    // average of all ranks (seen off by one on the GPU), so integers average on the flat route.
    boolean exact = op != ReduceOp.AVG || in.dataType().isFloatingPoint();
    if (in.count() == 0 || !exact || plan.algorithmFor(in.sizeBytes()) != Algorithm.HIERARCHICAL) {
      return flat.allReduce(in, out, op, stream, what);
    }
    LocalRoute.copy(in, out, stream);
    DataType t = out.dataType();
    long count = out.count();
    long body = count - count % islandSize;
    long chunk = chunkElems(body, plan.predictionFor(in.sizeBytes()).hierarchicalChunks());
    DeviceBuffer previous = null;
    int c = 0;
    for (long at = 0; at < body; at += chunk, c++) {
      DeviceBuffer whole = out.slice(at, Math.min(chunk, body - at));
      scatterAndReduce(whole, op, stream, c);
      if (previous != null) {
        gather(previous, stream, c - 1);
      }
      previous = whole;
    }
    if (previous != null) {
      gather(previous, stream, c - 1);
    }
    if (body < count) {
      // The last count % k elements, through a k-element buffer: each island rank owns one.
      long rest = count - body;
      DeviceBuffer padded =
          new DeviceBuffer(Cu.address(tail), out.deviceIndex(), out.stream(), islandSize, t);
      DeviceBuffer src = out.slice(body, rest);
      LocalRoute.copy(src, padded.slice(0, rest), stream);
      scatterAndReduce(padded, op, stream, c);
      gather(padded, stream, c);
      LocalRoute.copy(padded.slice(0, rest), src, stream);
    }
    return done.after(stream, what);
  }

  /**
   * Elements per chunk: {@code body} in the plan's {@code chunks} (its pipeline, {@code
   * CostModel#hierarchical}), rounded up to a multiple of k.
   */
  private long chunkElems(long body, int chunks) {
    long elems = (body + chunks - 1) / chunks;
    return Math.max(islandSize, (elems + islandSize - 1) / islandSize * islandSize);
  }

  /** RS of {@code whole} into its block {@code islandRank}, then the column's all-reduce of it. */
  private void scatterAndReduce(DeviceBuffer whole, ReduceOp op, CUstream stream, int c) {
    DeviceBuffer block = block(whole);
    island.reduceScatter(whole, block, op, stream);
    Cu.check(JCudaDriver.cuEventRecord(scattered, stream), "cuEventRecord");
    Cu.check(JCudaDriver.cuStreamWaitEvent(columnStream, scattered, 0), "cuStreamWaitEvent");
    column.allReduce(block, op, columnStream);
    // Two events alternate: a wait binds to the record before it, so chunk c's may be recorded
    // again only after the caller stream's wait for it was queued (at chunk c + 1).
    Cu.check(JCudaDriver.cuEventRecord(reduced[c & 1], columnStream), "cuEventRecord");
  }

  /** Once the column has reduced chunk {@code c}, the island's all-gather of it. */
  private void gather(DeviceBuffer whole, CUstream stream, int c) {
    Cu.check(JCudaDriver.cuStreamWaitEvent(stream, reduced[c & 1], 0), "cuStreamWaitEvent");
    DeviceBuffer block = block(whole);
    island.allGather(block.devicePointer(), whole.devicePointer(), block.sizeBytes(), stream);
  }

  private DeviceBuffer block(DeviceBuffer whole) {
    long n = whole.count() / islandSize;
    return whole.slice(islandRank * n, n);
  }

  @Override
  public Work broadcast(DeviceBuffer buffer, int root, CUstream stream, Supplier<String> what) {
    return flat.broadcast(buffer, root, stream, what);
  }

  @Override
  public Work allGather(
      DeviceBuffer part, DeviceBuffer whole, CUstream stream, Supplier<String> what) {
    return flat.allGather(part, whole, stream, what);
  }

  @Override
  public Work reduceScatter(
      DeviceBuffer whole, DeviceBuffer part, ReduceOp op, CUstream stream, Supplier<String> what) {
    return flat.reduceScatter(whole, part, op, stream, what);
  }

  @Override
  public Work barrier(DeviceBuffer word, CUstream stream, Supplier<String> what) {
    return flat.barrier(word, stream, what);
  }

  @Override
  public MailboxCollectives mailbox() {
    return flat.mailbox(); // the whole group's: every pair's where the flat route is direct
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long deviceBytes() {
    return flat.deviceBytes()
        + islandLauncher.allocatedBytes()
        + column.deviceBytes()
        + 8L * islandSize;
  }

  @Override
  public long maxLaunchBytes() {
    return flat.maxLaunchBytes();
  }

  @Override
  public List<RuntimeException> close() {
    List<RuntimeException> errors = new ArrayList<>(flat.close());
    errors.addAll(column.close());
    errors.addAll(CloseSteps.each(island, islandLauncher));
    JCudaDriver.cuMemFree(tail);
    JCudaDriver.cuStreamDestroy(columnStream);
    for (CUevent e : List.of(scattered, reduced[0], reduced[1])) {
      JCudaDriver.cuEventDestroy(e);
    }
    return errors;
  }

  @Override
  public String toString() {
    return flat + "; island " + islandLauncher + "; column " + column;
  }
}
