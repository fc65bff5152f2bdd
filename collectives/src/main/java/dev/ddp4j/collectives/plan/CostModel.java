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
   * Hierarchical: ring reduce-scatter inside each island, ring all-reduce of each 1/k block across
   * the islands (member j of every island together), ring all-gather inside each island. Each ring
   * runs in both directions on half the data.
   *
   * @param islands rank ids of each island, in intra-island ring order, equal sizes
   * @param channelPairs channels per direction: each flow is spread over this many channels
   * @param via how column hops between hosts go: {@link InterHost#NCCL} moves device memory over
   *     the NIC (bounded by its NET link), {@link InterHost#SOCKET} through pinned host memory and
   *     TCP (bounded by the host-staged rate too)
   */
  public double hierarchicalUs(List<int[]> islands, double bytes, int channelPairs, InterHost via) {
    int m = islands.size();
    int k = islands.get(0).length;
    double intraChunk = bytes / (k * 2.0) / params.ringRate();
    PhaseCost intra = phase();
    for (int[] island : islands) {
      for (int i = 0; i < k; i++) {
        intra.flow(island[i], island[(i + 1) % k], intraChunk);
        intra.flow(island[(i + 1) % k], island[i], intraChunk);
      }
    }
    intra.reduce(2 * intraChunk);
    intra.channels(2 * channelPairs);
    double interChunk = bytes / k / (m * 2.0) / params.ringRate();
    PhaseCost inter = phase().netStaged(via == InterHost.SOCKET);
    for (int j = 0; j < k; j++) {
      for (int i = 0; i < m; i++) {
        int a = islands.get(i)[j];
        int b = islands.get((i + 1) % m)[j];
        inter.flow(a, b, interChunk);
        inter.flow(b, a, interChunk);
      }
    }
    inter.reduce(interChunk);
    inter.channels(2 * channelPairs);
    double intraUs = (k - 1) * intra.stepUs();
    // Three phases, each its own launch on GPUs (launchUs is 0 on CPUs): the cuda executor's
    // reduce-scatter, all-reduce across the islands and all-gather are separate kernels.
    return 3 * params.launchUs() + 2 * intraUs + 2.0 * (m - 1) * inter.stepUs();
  }

  /** Bus bandwidth of an all-reduce of {@code bytes} taking {@code us}: NCCL's busbw, GB/s. */
  public static double busBwGbps(double bytes, double us, int n) {
    return us <= 0 ? 0 : bytes / (us * 1e3) * 2.0 * (n - 1) / n;
  }
}
