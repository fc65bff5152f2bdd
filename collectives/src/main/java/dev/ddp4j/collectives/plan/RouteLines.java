package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Link;
import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * NCCL-style route lines, one per ring channel and hop, for {@code DDP4J_DEBUG=INFO} logs and the
 * {@code topo} command: {@code Channel 00/02 : 0[0] -> 1[1] via P2P/IPC over NVL (NV12, 300 GB/s)}.
 */
public final class RouteLines {

  private RouteLines() {}

  /** Every hop of every ring channel of the plan. */
  public static List<String> of(Topology t, Plan plan) {
    List<String> out = new ArrayList<>();
    int channels = plan.rings().size();
    for (int c = 0; c < channels; c++) {
      int[] ring = plan.rings().get(c);
      for (int i = 0; i < ring.length && ring.length > 1; i++) {
        int a = ring[i];
        int b = ring[(i + 1) % ring.length];
        out.add(
            String.format(Locale.ROOT, "Channel %02d/%02d : %s", c, channels, hop(t, plan, a, b)));
      }
    }
    return out;
  }

  /** The lines of one rank: the hops it sends on, per channel (what a running rank logs). */
  public static List<String> ofRank(Topology t, Plan plan, int rank) {
    List<String> out = new ArrayList<>();
    int channels = plan.rings().size();
    for (int c = 0; c < channels; c++) {
      int[] ring = plan.rings().get(c);
      for (int i = 0; i < ring.length && ring.length > 1; i++) {
        if (ring[i] == rank) {
          out.add(
              String.format(
                  Locale.ROOT,
                  "Channel %02d/%02d : %s",
                  c,
                  channels,
                  hop(t, plan, rank, ring[(i + 1) % ring.length])));
        }
      }
    }
    return out;
  }

  /**
   * Where the plan runs the hierarchical all-reduce, what its phases cross: one line per island
   * (reduce-scatter and all-gather inside it) and one per hop of each column (the ranks at the same
   * position of every island, in island order), which all-reduces its block across the islands:
   * {@code Hierarchical column 0/2 : 0[0] -> 2[2] via P2P/IPC over SYS (20 GB/s)}, between hosts
   * {@code ... via NET/NCCL over NET (12.5 GB/s)} or {@code ... via NET/socket over NET (...)}.
   * Empty where the plan never runs it.
   */
  public static List<String> hierarchical(Topology t, Plan plan) {
    return hierarchical(t, plan, -1);
  }

  /** The hierarchical lines of one rank: its island, and the column hops it sends on. */
  public static List<String> hierarchicalOfRank(Topology t, Plan plan, int rank) {
    return hierarchical(t, plan, rank);
  }

  private static List<String> hierarchical(Topology t, Plan plan, int rank) {
    List<String> out = new ArrayList<>();
    if (!plan.uses(Algorithm.HIERARCHICAL)) {
      return out;
    }
    List<int[]> islands = plan.islands();
    int k = islands.get(0).length;
    int m = islands.size();
    for (int i = 0; i < m; i++) {
      int[] island = islands.get(i);
      if (rank < 0 || java.util.Arrays.stream(island).anyMatch(r -> r == rank)) {
        out.add(
            String.format(
                Locale.ROOT,
                "Hierarchical island %d/%d : %s reduce-scatter and all-gather inside (from %s)",
                i,
                m,
                java.util.Arrays.toString(island),
                Sizes.human(plan.smallestBytesOf(Algorithm.HIERARCHICAL))));
      }
    }
    for (int j = 0; j < k; j++) {
      for (int i = 0; i < m && m > 1; i++) {
        int a = islands.get(i)[j];
        int b = islands.get((i + 1) % m)[j];
        if (rank < 0 || a == rank) {
          out.add(
              String.format(
                  Locale.ROOT,
                  "Hierarchical column %d/%d : %s",
                  j,
                  k,
                  hop(t, plan, a, b, plan.interHost().transport())));
        }
      }
    }
    return out;
  }

  /**
   * {@code 0[0] -> 1[1] via P2P/IPC over NVL (NV12, 300 GB/s)}: ranks, [device], transport, path.
   */
  public static String hop(Topology t, Plan plan, int fromRank, int toRank) {
    return hop(t, plan, fromRank, toRank, "NET/Socket");
  }

  /**
   * As above, a hop between hosts named {@code netTransport}: {@code NET/Socket} on a ring (the cpu
   * backend's sockets), the plan's {@link InterHost} on a hierarchical column.
   */
  private static String hop(Topology t, Plan plan, int fromRank, int toRank, String netTransport) {
    int da = plan.devices()[fromRank];
    int db = plan.devices()[toRank];
    Route r = t.route(da, db);
    if (t.hasGpus() && r.type() != PathType.NET && !t.peerAccess(da, db)) {
      return String.format(
          Locale.ROOT,
          "%d[%s] -> %d[%s] via SHM/staged over PCI (device <-> pinned host memory; no peer"
              + " access on %s)",
          fromRank,
          t.device(da).attr("dev", Integer.toString(da)),
          toRank,
          t.device(db).attr("dev", Integer.toString(db)),
          r.label());
    }
    return String.format(
        Locale.ROOT,
        "%d[%s] -> %d[%s] via %s over %s (%s%s GB/s)",
        fromRank,
        t.device(da).attr("dev", Integer.toString(da)),
        toRank,
        t.device(db).attr("dev", Integer.toString(db)),
        r.type() == PathType.NET ? netTransport : transport(t, r),
        r.type() == PathType.NV ? "NVL" : r.type().name(),
        r.type() == PathType.NV ? r.label() + ", " : slowestLinkLabel(t, r),
        gbps(r.gbps()));
  }

  /**
   * How an executor moves data along this route: sockets between hosts, shared memory between CPU
   * ranks, CUDA IPC between GPUs with peer access (also across the socket interconnect, where the
   * driver allows it), host staging between GPUs without.
   */
  static String transport(Topology t, Route r) {
    if (r.type() == PathType.NET) {
      return "NET/Socket";
    }
    if (!t.hasGpus()) {
      return "SHM";
    }
    return t.peerAccess(r.from(), r.to()) ? "P2P/IPC" : "SHM/staged";
  }

  /** {@code "PCIe x16, "} when the slowest link says more than the path class, else empty. */
  private static String slowestLinkLabel(Topology t, Route r) {
    Link slowest = null;
    for (int h : r.hops()) {
      Link l = t.link(Route.linkOf(h));
      if (slowest == null || l.gbps() < slowest.gbps()) {
        slowest = l;
      }
    }
    return slowest == null || slowest.label().equals(r.type().name()) ? "" : slowest.label() + ", ";
  }

  static String gbps(double v) {
    return v >= 10 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }
}
