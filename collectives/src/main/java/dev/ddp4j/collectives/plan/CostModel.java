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
    PhaseCost p = phase();
    for (int[] ring : rings) {
      for (int i = 0; i < n; i++) {
        p.flow(ring[i], ring[(i + 1) % n], chunk);
      }
    }
    p.reduce(chunk * rings.size() / 2);
    return 2.0 * (n - 1) * p.stepUs();
  }

  /** Double binary tree all-reduce: half the data per tree, reduce up and broadcast down. */
  public double treeUs(DoubleTree trees, double bytes) {
    int n = devices.length;
    if (n == 1) {
      return 0;
    }
    double perTree = bytes / trees.parents().size();
    long slices = Math.max(1, (long) Math.ceil(perTree / params.sliceBytes()));
    double slice = perTree / slices;
    PhaseCost p = phase();
    int depth = 0;
    for (int k = 0; k < trees.parents().size(); k++) {
      int[] parent = trees.parents().get(k);
      for (int r = 0; r < n; r++) {
        if (parent[r] >= 0) {
          p.flow(r, parent[r], slice);
          p.flow(parent[r], r, slice);
        }
      }
      depth = Math.max(depth, trees.depth(k));
    }
    p.reduce(2 * slice * trees.parents().size());
    return (slices + 2.0 * depth - 1) * p.stepUs();
  }

  /** One-shot: every rank receives every other rank's whole buffer and reduces locally. */
  public double oneShotUs(double bytes) {
    int n = devices.length;
    PhaseCost p = phase();
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        if (a != b) {
          p.flow(a, b, bytes);
        }
      }
    }
    p.reduce(bytes * (n - 1));
    return n == 1 ? 0 : p.stepUs();
  }

  /** Two-shot: direct reduce-scatter of 1/n blocks, then direct all-gather. */
  public double twoShotUs(double bytes) {
    int n = devices.length;
    double block = bytes / n;
    PhaseCost scatter = phase();
    PhaseCost gather = phase();
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        if (a != b) {
          scatter.flow(a, b, block);
          gather.flow(a, b, block);
        }
      }
    }
    scatter.reduce(block * (n - 1));
    return n == 1 ? 0 : scatter.stepUs() + gather.stepUs();
  }

  /**
   * Hierarchical: ring reduce-scatter inside each island, ring all-reduce of each 1/k block across
   * the islands (member j of every island together), ring all-gather inside each island. Each ring
   * runs in both directions on half the data.
   *
   * @param islands rank ids of each island, in intra-island ring order, equal sizes
   * @param channelPairs channels per direction: each flow is spread over this many channels
   */
  public double hierarchicalUs(List<int[]> islands, double bytes, int channelPairs) {
    int m = islands.size();
    int k = islands.get(0).length;
    double intraChunk = bytes / (k * 2.0);
    PhaseCost intra = phase();
    for (int[] island : islands) {
      for (int i = 0; i < k; i++) {
        intra.flow(island[i], island[(i + 1) % k], intraChunk);
        intra.flow(island[(i + 1) % k], island[i], intraChunk);
      }
    }
    intra.reduce(2 * intraChunk);
    intra.channels(channelPairs);
    double interChunk = bytes / k / (m * 2.0);
    PhaseCost inter = phase();
    for (int j = 0; j < k; j++) {
      for (int i = 0; i < m; i++) {
        int a = islands.get(i)[j];
        int b = islands.get((i + 1) % m)[j];
        inter.flow(a, b, interChunk);
        inter.flow(b, a, interChunk);
      }
    }
    inter.reduce(interChunk);
    inter.channels(channelPairs);
    double intraUs = (k - 1) * intra.stepUs();
    return 2 * intraUs + 2.0 * (m - 1) * inter.stepUs();
  }

  /** Bus bandwidth of an all-reduce of {@code bytes} taking {@code us}: NCCL's busbw, GB/s. */
  public static double busBwGbps(double bytes, double us, int n) {
    return us <= 0 ? 0 : bytes / (us * 1e3) * 2.0 * (n - 1) / n;
  }
}
