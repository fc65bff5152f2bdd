package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyHash;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a topology and a rank-to-device map into a {@link Plan}: ring channels, a double binary
 * tree, islands for the hierarchical algorithm, and per size the algorithm the {@link CostModel}
 * predicts fastest (or the one {@code DDP4J_ALGO} forces). Deterministic: the same inputs give the
 * same plan on every rank.
 */
public final class Planner {

  /** Size at which the number of ring channels is chosen (bandwidth-bound). */
  static final double CHANNEL_PROBE_BYTES = 256.0 * 1024 * 1024;

  /** Largest size in the prediction table: 4 GiB. */
  static final long MAX_TABLE_BYTES = 1L << 32;

  private Planner() {}

  /** Plans for ranks running on {@code devices} (rank r on device index devices[r]). */
  public static Plan plan(Topology t, int[] devices, PlannerOptions o) {
    return plan(t, devices, o, Algorithm.modelled());
  }

  /**
   * As above, choosing per size only among {@code allowed} (ring is always allowed; an algorithm
   * that {@code DDP4J_ALGO} forces is allowed too). An executor leaves out what it should not pick
   * on its own, such as a one-shot whose ranks would add in different orders.
   */
  public static Plan plan(Topology t, int[] devices, PlannerOptions o, Set<Algorithm> allowed) {
    return plan(t, devices, o, Algorithm.modelled(), allowed);
  }

  /**
   * As above for an executor that runs only {@code supported}: the table predicts those alone (the
   * cuda executor's {@link Algorithm#onCuda}), and chooses among {@code allowed}.
   */
  public static Plan plan(
      Topology t,
      int[] devices,
      PlannerOptions o,
      Set<Algorithm> supported,
      Set<Algorithm> allowed) {
    int n = devices.length;
    if (n < 1) {
      throw new IllegalArgumentException("no ranks to plan for (expected: at least one device)");
    }
    CostModel cost = new CostModel(t, devices, o.cost());
    List<int[]> rings = chooseChannels(cost, RingChannels.search(t, devices, o.maxChannels()), o);
    DoubleTree trees = DoubleTree.over(rings.get(0));
    List<int[]> islands = orderedIslands(t, devices);
    boolean directOk = directOk(t, devices);
    int hierPairs = Math.max(1, o.maxChannels() / 2);
    // DDP4J_MAX_NCHANNELS=1 means one channel for every schedule, also the wide ones.
    int wide = Math.min(2 * hierPairs, o.maxChannels());
    List<Prediction> table = new ArrayList<>();
    for (long bytes = 8; bytes <= MAX_TABLE_BYTES; bytes <<= 1) {
      Map<Algorithm, Double> us = new EnumMap<>(Algorithm.class);
      us.put(Algorithm.RING, cost.ringUs(rings, bytes));
      if (n > 2 && supported.contains(Algorithm.TREE)) {
        us.put(Algorithm.TREE, cost.treeUs(trees, bytes));
      }
      if (directOk && n > 1) {
        putIf(us, supported, Algorithm.ONESHOT, cost.oneShotUs(bytes, wide));
        putIf(us, supported, Algorithm.TWOSHOT, cost.twoShotUs(bytes, wide));
        if (bytes <= o.cost().llMaxBytes()) {
          putIf(us, supported, Algorithm.LL, cost.llUs(bytes, wide));
        }
        putIf(us, supported, Algorithm.COPYENGINE, cost.copyEngineUs(bytes, wide));
      }
      int chunks = 1;
      if (!islands.isEmpty() && supported.contains(Algorithm.HIERARCHICAL)) {
        CostModel.Pipeline h = cost.hierarchical(islands, bytes, hierPairs, o.interHost());
        us.put(Algorithm.HIERARCHICAL, h.timeUs());
        chunks = h.chunks();
      }
      Algorithm chosen = Algorithm.RING;
      for (Map.Entry<Algorithm, Double> e : us.entrySet()) {
        if (allowed.contains(e.getKey()) && e.getValue() < us.get(chosen)) {
          chosen = e.getKey();
        }
      }
      if (o.forced().isPresent() && us.containsKey(o.forced().get())) {
        chosen = o.forced().get();
      }
      table.add(new Prediction(bytes, chosen, us, n, chunks));
    }
    Plan draft =
        new Plan(
            TopologyHash.sha256(t),
            devices,
            rings,
            trees,
            islands,
            wide,
            directOk,
            table,
            List.of(),
            o.interHost());
    return draft.withWarnings(Advice.warnings(t, draft, o));
  }

  private static void putIf(
      Map<Algorithm, Double> us, Set<Algorithm> supported, Algorithm a, double timeUs) {
    if (supported.contains(a)) {
      us.put(a, timeUs);
    }
  }

  /** Plans for the first {@code ranks} devices in the order {@link GpuOrder} recommends. */
  public static Plan plan(Topology t, int ranks, PlannerOptions o) {
    return plan(t, GpuOrder.of(t, ranks), o);
  }

  /** The fewest channels within 1% of the best predicted bandwidth-bound time. */
  private static List<int[]> chooseChannels(CostModel cost, List<int[]> all, PlannerOptions o) {
    double[] us = new double[all.size() + 1];
    double best = Double.POSITIVE_INFINITY;
    for (int c = o.minChannels(); c <= all.size(); c++) {
      us[c] = cost.ringUs(all.subList(0, c), CHANNEL_PROBE_BYTES);
      best = Math.min(best, us[c]);
    }
    for (int c = o.minChannels(); c <= all.size(); c++) {
      if (us[c] <= best * 1.01) {
        return List.copyOf(all.subList(0, c));
      }
    }
    return List.copyOf(all);
  }

  private static List<int[]> orderedIslands(Topology t, int[] devices) {
    List<int[]> out = new ArrayList<>();
    for (int[] island : Islands.of(t, devices)) {
      // An island's reduce-scatter and all-gather are direct kernels on GPUs: every pair inside
      // needs peer access, or the islands are no faster inside than between.
      for (int a : island) {
        for (int b : island) {
          if (!t.peerAccess(devices[a], devices[b])) {
            return List.of();
          }
        }
      }
      out.add(RingSearch.best(new RingScorer(t, devices, null), island));
    }
    return out;
  }

  /**
   * One host, no pair of GPUs that would need the socket interconnect for P2P, and peer access
   * between every pair.
   */
  private static boolean directOk(Topology t, int[] devices) {
    for (int a = 0; a < devices.length; a++) {
      for (int b = 0; b < devices.length; b++) {
        PathType type = t.route(devices[a], devices[b]).type();
        if (type == PathType.NET
            || (t.hasGpus() && type == PathType.SYS)
            || !t.peerAccess(devices[a], devices[b])) {
          return false;
        }
      }
    }
    return true;
  }
}
