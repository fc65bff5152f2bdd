package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ConfigException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.InterHost;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanAgreement;
import dev.ddp4j.collectives.plan.Planner;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.collectives.topology.NvidiaSmiTopoParser;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a cuda group gets its plan: {@link PlanAgreement} over each host's GPUs (discovered, or
 * {@code DDP4J_TOPO_FILE}), with every pair's peer access as {@link PeerDirectory} found it, so the
 * planner's rings keep to peer pairs and its direct algorithms run only where every pair has one.
 * The channel bound is agreed too: the fewest blocks that every rank's GPU keeps resident for all
 * the ranks sharing it ({@link #residentChannels}), so spinning kernels never wait on a block that
 * cannot run. {@code launcher.jar topo} plans with {@link #options} and {@link #request} as well,
 * so that it prints what a cuda group runs.
 */
public final class GpuPlanning {

  private GpuPlanning() {}

  /**
   * The planner's options for a cuda group: {@code DDP4J_ALGO} (which must name an algorithm the
   * cuda executor has), {@code DDP4J_NCHANNELS} / {@code DDP4J_MIN_NCHANNELS} / {@code
   * DDP4J_MAX_NCHANNELS}, and at most {@code residentCap} channels.
   *
   * @throws ConfigException naming the value and what the cuda backend runs
   */
  public static PlannerOptions options(Settings env, int residentCap) {
    PlannerOptions o = PlannerOptions.fromEnvironment(env, true);
    if (o.forced().isPresent() && !Algorithm.onCuda().contains(o.forced().get())) {
      throw new ConfigException(
          "DDP4J_ALGO="
              + o.forced().get().id()
              + " has no cuda kernel (expected one of: ring, oneshot, twoshot, ll, copyengine,"
              + " hierarchical; tree runs on the cpu backend)");
    }
    int max = Math.max(1, Math.min(o.maxChannels(), residentCap));
    return new PlannerOptions(o.forced(), Math.min(o.minChannels(), max), max, o.cost());
  }

  /**
   * The plan a cuda group of ranks on {@code devices} of {@code t} runs when every pair has the
   * peer access {@code t} says and the GPUs keep every channel resident: what {@code launcher.jar
   * topo} prints.
   */
  public static Plan plan(Topology t, int[] devices, Settings env) {
    return plan(t, devices, env, assumedInterHost(env));
  }

  /**
   * As above, with the hierarchical column between hosts over {@code via} (ranks on several hosts;
   * ignored on one): {@code topo} prints the plan for NCCL and for the sockets.
   */
  public static Plan plan(Topology t, int[] devices, Settings env, InterHost via) {
    boolean oneHost = hostCount(t, devices) == 1;
    PlannerOptions o = options(env, PlannerOptions.DEFAULT_MAX_CHANNELS_GPU);
    PlanAgreement.Request r = request(oneHost ? o : o.withInterHost(via), oneHost);
    return Planner.plan(t, devices, r.options(), r.supported(), r.allowed());
  }

  /**
   * How a cuda group's column between hosts is planned before the ranks compare their NCCL: over
   * NCCL unless {@code DDP4J_INTER_HOST=socket} (a running group plans over the sockets where some
   * rank cannot load NCCL and {@code auto} is set).
   *
   * @throws ConfigException for a value other than auto, nccl or socket
   */
  public static InterHost assumedInterHost(Settings env) {
    return InterHostChoice.assumed(InterHostChoice.setting(env));
  }

  private static int hostCount(Topology t, int[] devices) {
    Set<Integer> hosts = new HashSet<>();
    for (int d : devices) {
      hosts.add(t.hostOf(d));
    }
    return hosts.size();
  }

  /**
   * What the cuda executor asks of the planner: every algorithm it has a kernel for. On several
   * hosts its hierarchical all-reduce takes the hosts as islands, the column between them over the
   * options' {@link InterHost} ({@link HierarchicalRoute}); everything else is host-staged.
   */
  public static PlanAgreement.Request request(PlannerOptions o, boolean oneHost) {
    Set<Algorithm> supported = EnumSet.copyOf(Algorithm.onCuda());
    Set<Algorithm> allowed = EnumSet.copyOf(Algorithm.chosenOnCuda());
    return new PlanAgreement.Request(
        o,
        supported,
        allowed,
        "DDP4J_ALGO, DDP4J_NCHANNELS, DDP4J_MIN_NCHANNELS, DDP4J_MAX_NCHANNELS"
            + (oneHost ? "" : ", DDP4J_INTER_HOST (and NCCL on every host)")
            + " and DDP4J_TOPO_FILE (and GPUs of one model)");
  }

  /**
   * Why a plan for ranks on several hosts runs no hierarchical all-reduce (its group is then
   * host-staged throughout), or empty where it runs one: a host with one rank, hosts with unequal
   * rank counts, a pair inside a host without peer access, or the staged ring predicted faster.
   */
  public static java.util.Optional<String> whyNoHostHierarchy(Topology t, Plan plan) {
    if (plan.uses(Algorithm.HIERARCHICAL)) {
      return java.util.Optional.empty();
    }
    int[] devices = plan.devices();
    java.util.TreeMap<Integer, List<Integer>> byHost = new java.util.TreeMap<>();
    for (int r = 0; r < devices.length; r++) {
      byHost.computeIfAbsent(t.hostOf(devices[r]), h -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<Integer, List<Integer>> e : byHost.entrySet()) {
      if (e.getValue().size() == 1) {
        return java.util.Optional.of(
            "host "
                + e.getKey()
                + " runs one rank ("
                + e.getValue().get(0)
                + "): the hierarchy needs at least 2 ranks with peer access on every host");
      }
    }
    List<Integer> counts = byHost.values().stream().map(List::size).toList();
    if (counts.stream().distinct().count() > 1) {
      return java.util.Optional.of(
          "the hosts run unequal numbers of ranks " + counts + " (the hierarchy needs equal ones)");
    }
    for (List<Integer> ranks : byHost.values()) {
      for (int a : ranks) {
        for (int b : ranks) {
          if (a != b && !t.peerAccess(devices[a], devices[b])) {
            return java.util.Optional.of(
                "ranks "
                    + a
                    + " and "
                    + b
                    + " share a host without peer access (the island's kernels need every pair)");
          }
        }
      }
    }
    return java.util.Optional.of("the plan predicts the host-staged ring faster at every size");
  }

  /**
   * Channels a launch may use so that every rank sharing a GPU keeps all the blocks of its kernel
   * resident, for the tightest kernel family: a one-shot channel (and one of the reduce-scatter,
   * all-gather and broadcast kernels) is two blocks, pusher and reducer; a two-shot, LL or ring
   * channel one.
   *
   * @param residentBlocks blocks of each kernel family the GPU keeps resident at once (all SMs)
   * @param ranksOnGpu ranks whose kernels share that GPU at the same time
   * @throws ConfigException where the GPU cannot keep even one channel of every sharing rank
   *     resident (their kernels would wait forever on blocks that never run), naming the fix
   */
  static int residentChannels(Map<Algorithm, Long> residentBlocks, int ranksOnGpu) {
    long cap = PlannerOptions.DEFAULT_MAX_CHANNELS_GPU;
    int ranks = Math.max(1, ranksOnGpu);
    for (Map.Entry<Algorithm, Long> e : residentBlocks.entrySet()) {
      int perChannel = e.getKey() == Algorithm.ONESHOT ? 2 : 1;
      long channels = e.getValue() / ((long) perChannel * ranks);
      if (channels < 1) {
        throw new ConfigException(
            ranks
                + " ranks share one GPU, which keeps "
                + e.getValue()
                + " blocks of the "
                + AllReduceKernels.prefix(e.getKey())
                + " kernels resident at once, fewer than the "
                + (long) perChannel * ranks
                + " their spinning kernels need together ("
                + perChannel
                + " a rank): run at most "
                + e.getValue() / perChannel
                + " ranks on that GPU");
      }
      cap = Math.min(cap, channels);
    }
    return (int) cap;
  }

  /**
   * The channel bound every rank agrees on: the smallest of what each rank published.
   *
   * @param mine this rank's {@link #residentChannels}
   */
  static int agreeResidentCap(
      Store store, String prefix, int rank, int size, int mine, Duration timeout) {
    return new StoreExchange(store, rank, size, timeout)
        .allGather(prefix + "/resident/", mine, ExchangeCodec.INT).stream()
            .mapToInt(Integer::intValue)
            .min()
            .orElse(mine);
  }

  /**
   * This host's GPUs as the planner sees them: {@code DDP4J_TOPO_FILE} or discovery; where ranks
   * share GPUs ({@code DDP4J_CUDA_SHARE_GPUS}) and no file says otherwise, {@code logicalGpus} GPUs
   * joined by NV18 (they move data through one GPU's memory, faster than any link).
   */
  static Topology hostTopology(Settings env, int logicalGpus, boolean sharing) {
    Topology t = TopologyDiscovery.discover(env, java.nio.file.Path.of("/sys"), 1).topology();
    boolean fromFile = env.isSet("DDP4J_TOPO_FILE");
    if (fromFile || (t.hasGpus() && (!sharing || t.deviceCount() >= logicalGpus))) {
      return t;
    }
    return sharedGpus(logicalGpus);
  }

  /** {@code n} logical GPUs, every pair NV18, as the text of {@code nvidia-smi topo -m}. */
  static Topology sharedGpus(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("\tGPU").append(i);
    }
    b.append("\tCPU Affinity\tNUMA Affinity\n");
    for (int i = 0; i < n; i++) {
      b.append("GPU").append(i);
      for (int j = 0; j < n; j++) {
        b.append(i == j ? "\t X " : "\tNV18");
      }
      b.append("\t0\t0\n");
    }
    return NvidiaSmiTopoParser.parse(b.toString());
  }

  /**
   * What names a rank's GPU for {@link #deviceOf(int, Topology, String)}: its PCI bus id, its
   * logical GPU and whether ranks share GPUs, so that any rank finds its device as it would.
   */
  static String deviceName(String busId, int logicalGpu, boolean sharing) {
    return busId.trim() + " " + logicalGpu + " " + sharing;
  }

  /** {@link #deviceOf(Topology, String, int, boolean)} of what {@code rank} published. */
  static int deviceOf(int rank, Topology host, String deviceName) {
    String[] f = deviceName.split(" ", 3);
    try {
      return deviceOf(host, f[0], Integer.parseInt(f[1]), Boolean.parseBoolean(f[2]));
    } catch (ConfigException e) {
      throw new ConfigException("rank " + rank + ": " + e.getMessage());
    }
  }

  /**
   * A rank's device in its host's topology: the GPU with its PCI bus id where the topology has
   * exactly one such (discovery) and ranks do not share GPUs, else its logical GPU (a topology
   * file, or ranks sharing GPUs).
   */
  static int deviceOf(Topology host, String busId, int logicalGpu, boolean sharing) {
    List<Integer> byBus = new ArrayList<>();
    String want = busId.trim().toLowerCase(Locale.ROOT);
    for (int i = 0; i < host.deviceCount(); i++) {
      if (host.device(i).attr("busid", "").toLowerCase(Locale.ROOT).equals(want)) {
        byBus.add(i);
      }
    }
    if (byBus.size() == 1 && !sharing) {
      return byBus.get(0);
    }
    if (logicalGpu < host.deviceCount()) {
      return logicalGpu;
    }
    throw new ConfigException(
        "its host's topology has "
            + host.deviceCount()
            + " GPU(s) but it runs on logical GPU "
            + logicalGpu
            + " (bus id "
            + busId
            + "): give DDP4J_TOPO_FILE a topology with a GPU for every local rank, or unset it");
  }

  /** Peer access by device of the job's topology, from {@code routing}'s pairs by rank. */
  static Topology withAccess(Topology job, int[] devices, PeerRouting routing) {
    boolean[][] byDevice = new boolean[job.deviceCount()][];
    for (int r = 0; r < devices.length; r++) {
      boolean[] row = new boolean[job.deviceCount()];
      for (int q = 0; q < devices.length; q++) {
        row[devices[q]] =
            q == r || routing.pairwise(r, q).transport() == PeerRouting.Transport.P2P_IPC;
      }
      byDevice[devices[r]] = row;
    }
    return job.withPeerAccess(byDevice);
  }

  /** How the group runs, from its plan and its pairs (the kinds of {@link RouteKind}). */
  static RouteKind route(Plan plan, PeerRouting routing) {
    int[] ring = plan.rings().get(0);
    if (plan.ranks() == 1) {
      return new RouteKind.Local();
    }
    if (plan.directOk()) {
      return new RouteKind.Direct();
    }
    if (routing.peerRing(ring)) {
      return new RouteKind.PeerRing(ring, null);
    }
    if (routing.oneHost()) {
      return new RouteKind.PeerRing(ring, routing.hostHopsOn(ring));
    }
    return new RouteKind.Staged();
  }
}
