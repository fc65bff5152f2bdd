package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Topology;
import java.util.List;

/**
 * Predicts how long an all-reduce of a given size takes with each algorithm on a topology: latency
 * plus bytes over bandwidth per step, with every concurrent flow charged to every physical link it
 * crosses (two flows through one PCIe uplink share it). See {@link PhaseCost}.
 */
public final class CostModel {

  private final Topology t;
  private final int[] devices;
  private final CostParams params;

  /**
   * @param devices device index of every rank
   */
  public CostModel(Topology t, int[] devices, CostParams params) {
    this.t = t;
    this.devices = devices;
    this.params = params;
  }

  private PhaseCost phase() {
    return new PhaseCost(t, devices, params);
  }

  /** Ring all-reduce over {@code rings} (one per channel), µs. */
  public double ringUs(List<int[]> rings, double bytes) {
    int n = devices.length;
    if (n == 1) {
      return 0;
    }
    double chunk = bytes / ((double) n * rings.size());
    double wire = chunk / params.ringRate();
    PhaseCost p = phase();
    for (int[] ring : rings) {
      for (int i = 0; i < n; i++) {
        p.flow(ring[i], ring[(i + 1) % n], wire);
      }
    }
    p.channels(rings.size()).reduce(chunk * rings.size() / 2);
    return params.launchUs() + 2.0 * (n - 1) * p.stepUs();
  }

  /**
   * Double binary tree all-reduce, one channel per tree on its half of the data, as {@code
   * TreeSchedules} runs it: slices pipeline up the tree (each rank reduces its children's slices
   * and passes the sum on), then down (each rank copies its parent's slice and passes it on).
   */
  public double treeUs(DoubleTree trees, double bytes) {
    int n = devices.length;
    if (n == 1) {
      return 0;
    }
    int count = trees.parents().size();
    double perTree = bytes / count;
    long slices = Math.max(1, (long) Math.ceil(perTree / params.sliceBytes()));
    double slice = perTree / slices;
    PhaseCost up = phase().channels(count).receives(2).reduce(2 * slice * count);
    PhaseCost down = phase().channels(count);
    int depth = 0;
    for (int k = 0; k < count; k++) {
      int[] parent = trees.parents().get(k);
      for (int r = 0; r < n; r++) {
        if (parent[r] >= 0) {
          up.flow(r, parent[r], slice);
          down.flow(parent[r], r, slice);
        }
      }
      depth = Math.max(depth, trees.depth(k));
    }
    return params.launchUs() + (slices + depth - 1.0) * (up.stepUs() + down.stepUs());
  }

  /** One-shot over {@code channels} channels: every rank receives every other rank's buffer. */
  public double oneShotUs(double bytes, int channels) {
    return directUs(bytes / params.directRate(), bytes, channels, params.stepOverheadUs(), 0);
  }

  /**
   * LL over {@code channels}: a one-shot whose 8-byte words carry their flags, so twice the bytes
   * cross the links but no fence or flag write is waited for. Infinite above what an LL launch
   * holds.
   */
  public double llUs(double bytes, int channels) {
    if (bytes > params.llMaxBytes()) {
      return Double.POSITIVE_INFINITY;
    }
    return directUs(2 * bytes / params.directRate(), bytes, channels, params.llStepOverheadUs(), 0);
  }

  /** One-shot whose pushes the copy engines make: their host calls, then their rate. */
  public double copyEngineUs(double bytes, int channels) {
    return directUs(
        bytes / params.copyEngineRate(),
        bytes,
        channels,
        params.stepOverheadUs(),
        params.copyEngineFixedUs());
  }

  /** Every rank sends {@code wire} bytes to every other and reduces the {@code bytes} it got. */
  private double directUs(double wire, double bytes, int channels, double overhead, double fixed) {
    int n = devices.length;
    PhaseCost p = phase().channels(channels).receives(n - 1).overheadUs(overhead);
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        if (a != b) {
          p.flow(a, b, wire);
        }
      }
    }
    p.reduce(bytes * (n - 1));
    return n == 1 ? 0 : params.launchUs() + fixed + p.stepUs();
  }

  /** Two-shot over {@code channels}: direct reduce-scatter of 1/n blocks, then all-gather. */
  public double twoShotUs(double bytes, int channels) {
    int n = devices.length;
    double block = bytes / n;
    double wire = block / params.twoShotRate();
    PhaseCost scatter = phase().channels(channels).receives(n - 1);
    PhaseCost gather = phase().channels(channels).receives(n - 1);
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        if (a != b) {
          scatter.flow(a, b, wire);
          gather.flow(a, b, wire);
        }
      }
    }
    scatter.reduce(block * (n - 1));
    return n == 1 ? 0 : params.launchUs() + scatter.stepUs() + gather.stepUs();
  }

  /**
   * A pipeline's chunk gives each of its channels at least this much: below, the per-step
   * handshakes and latency outweigh the overlap they buy (the simulator showed the hierarchy
   * slowing down with 4 KiB per channel), and on GPUs each chunk costs three launches too.
   */
  public static final long MIN_PIPELINE_CHANNEL_BYTES = 64 << 10;

  /** A pipeline runs at most this many chunks: beyond, its fill is under 2 % of its time. */
  public static final int MAX_PIPELINE_CHUNKS = 64;

  /** The hierarchical all-reduce's best pipeline for a size: its time and chunks. */
  public record Pipeline(double timeUs, int chunks) {}

  /**
   * Hierarchical, as both executors run it ({@code HierarchicalSchedules}, the cuda {@code
   * HierarchicalRoute}): the buffer in {@code C} chunks, each through ring reduce-scatter inside
   * each island (RS), ring all-reduce of each 1/k block across the islands (member j of every
   * island together; X) and ring all-gather inside each island (AG); each ring runs in both
   * directions on half the data. The island runs RS and AG one after the other, the column runs X
   * beside them on chunk i while the island works on chunk i + 1, so a chunk enters the pipeline
   * every {@code max(RS + AG, X, the links all three share)} after the first has gone through all
   * three: {@code T(C) = RS + X + AG + (C - 1) * beat}, each phase charged for one chunk (a GPU
   * executor's phases are kernels, serial on their streams; the cpu runner's steps overlap, so its
   * beat is its busiest resource). The chunk count is the one of 1, 2, 4 ... {@link
   * #MAX_PIPELINE_CHUNKS} (chunks of at least {@link #MIN_PIPELINE_CHANNEL_BYTES} per channel) with
   * the least time.
   *
   * @param islands rank ids of each island, in intra-island ring order, equal sizes
   * @param channelPairs channels per direction: each flow is spread over this many channels
   * @param via how column hops between hosts go: {@link InterHost#NCCL} moves device memory over
   *     the NIC (bounded by its NET link), {@link InterHost#SOCKET} through pinned host memory and
   *     TCP (bounded by the host-staged rate too)
   */
  public Pipeline hierarchical(List<int[]> islands, double bytes, int channelPairs, InterHost via) {
    Pipeline best = new Pipeline(hierarchicalUs(islands, bytes, channelPairs, via, 1), 1);
    double smallest = MIN_PIPELINE_CHANNEL_BYTES * 2.0 * channelPairs;
    for (int c = 2; c <= MAX_PIPELINE_CHUNKS && bytes / c >= smallest; c <<= 1) {
      double us = hierarchicalUs(islands, bytes, channelPairs, via, c);
      if (us < best.timeUs()) {
        best = new Pipeline(us, c);
      }
    }
    return best;
  }

  /** {@link #hierarchical}'s time with {@code chunks} chunks, µs. */
  public double hierarchicalUs(
      List<int[]> islands, double bytes, int channelPairs, InterHost via, int chunks) {
    int m = islands.size();
    int k = islands.get(0).length;
    double chunk = bytes / chunks;
    double intraFlow = chunk / (k * 2.0) / params.ringRate();
    double interFlow = chunk / k / (m * 2.0) / params.ringRate();
    PhaseCost scatter = islandStep(islands, intraFlow, 1, channelPairs).reduce(2 * intraFlow);
    PhaseCost gather = islandStep(islands, intraFlow, 1, channelPairs);
    PhaseCost column = columnStep(phase(), islands, interFlow, 1, channelPairs, via);
    column.reduce(interFlow);
    // Every link's bytes of one chunk's three phases, for the beat's shared-link bound.
    PhaseCost shared = islandStep(islands, intraFlow, 2.0 * (k - 1), channelPairs);
    columnStep(shared, islands, interFlow, 2.0 * (m - 1), channelPairs, via);
    // Each phase is its own launch on GPUs (launchUs is 0 on CPUs).
    double rs = k > 1 ? params.launchUs() + (k - 1) * scatter.stepUs() : 0;
    double ag = k > 1 ? params.launchUs() + (k - 1) * gather.stepUs() : 0;
    double x = m > 1 ? params.launchUs() + 2.0 * (m - 1) * column.stepUs() : 0;
    double beat;
    if (params.launchUs() > 0) {
      // Kernels (only an executor that launches them has a launch cost): a stream runs one phase
      // at a time, each paying its steps' latency and handshakes.
      beat = Math.max(Math.max(rs + ag, x), shared.transferUs());
    } else {
      // Steps (the cpu runner): a step starts as soon as its peer and bytes allow, so latency and
      // handshakes hide behind other chunks' transfers; the busiest resource sets the beat: the
      // island's sends, the column's, the links they share, a channel's receives (one overhead
      // each) or the rank's reductions.
      double islandSends = (k - 1) * (scatter.transferUs() + gather.transferUs());
      double columnSends = 2.0 * (m - 1) * column.transferUs();
      double receives = (2.0 * (k - 1) + 2.0 * (m - 1)) * params.stepOverheadUs();
      double reduced = chunk * ((k - 1.0) / k + (m - 1.0) / ((double) m * k));
      double reductions = reduced / (params.reduceGbps() * 1e3);
      beat =
          Math.max(
              Math.max(islandSends, columnSends),
              Math.max(shared.transferUs(), Math.max(receives, reductions)));
    }
    return rs + x + ag + (chunks - 1) * beat;
  }

  /** Both directions of every island ring, {@code times} x {@code flow} bytes per hop. */
  private PhaseCost islandStep(List<int[]> islands, double flow, double times, int channelPairs) {
    PhaseCost p = phase().channels(2 * channelPairs);
    int k = islands.get(0).length;
    for (int[] island : islands) {
      for (int i = 0; i < k && k > 1; i++) {
        p.flow(island[i], island[(i + 1) % k], times * flow);
        p.flow(island[(i + 1) % k], island[i], times * flow);
      }
    }
    return p;
  }

  /** Both directions of every column ring (position j of every island), onto {@code p}. */
  private static PhaseCost columnStep(
      PhaseCost p,
      List<int[]> islands,
      double flow,
      double times,
      int channelPairs,
      InterHost via) {
    int m = islands.size();
    p.netStaged(via == InterHost.SOCKET).channels(2 * channelPairs);
    for (int j = 0; j < islands.get(0).length && m > 1; j++) {
      for (int i = 0; i < m; i++) {
        int a = islands.get(i)[j];
        int b = islands.get((i + 1) % m)[j];
        p.flow(a, b, times * flow);
        p.flow(b, a, times * flow);
      }
    }
    return p;
  }

  /** Bus bandwidth of an all-reduce of {@code bytes} taking {@code us}: NCCL's busbw, GB/s. */
  public static double busBwGbps(double bytes, double us, int n) {
    return us <= 0 ? 0 : bytes / (us * 1e3) * 2.0 * (n - 1) / n;
  }
}
