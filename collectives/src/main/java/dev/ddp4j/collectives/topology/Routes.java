package dev.ddp4j.collectives.topology;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * Finds routes between devices: the widest path (largest bottleneck bandwidth), and among those the
 * one with the fewest hops. Routes never pass through another rank device: GPUs do not forward
 * traffic.
 *
 * <p>Exact in two passes: a max-min Dijkstra gives each target's best bottleneck b; then a
 * breadth-first search over the links of at least b gives the fewest hops (one search per distinct
 * b, of which a machine has a handful).
 */
final class Routes {

  private Routes() {}

  static Route[] fromDevice(Topology t, int fromIndex, int[] deviceNodes) {
    int n = t.nodes().size();
    int src = deviceNodes[fromIndex];
    double[] widest = widest(t, src);
    Route[] out = new Route[deviceNodes.length];
    TreeSet<Double> levels = new TreeSet<>();
    for (int i = 0; i < deviceNodes.length; i++) {
      if (i != fromIndex && widest[deviceNodes[i]] > 0) {
        levels.add(widest[deviceNodes[i]]);
      }
    }
    for (double level : levels) {
      int[] parentLink = bfs(t, src, level, n);
      for (int i = 0; i < deviceNodes.length; i++) {
        if (i != fromIndex && widest[deviceNodes[i]] == level) {
          out[i] = build(t, fromIndex, i, src, deviceNodes[i], parentLink);
        }
      }
    }
    out[fromIndex] =
        new Route(fromIndex, fromIndex, new int[0], Double.POSITIVE_INFINITY, 0, PathType.X, 0);
    for (int i = 0; i < out.length; i++) {
      if (out[i] == null) {
        throw new IllegalStateException(
            t.deviceLabel(fromIndex)
                + " cannot reach "
                + t.deviceLabel(i)
                + ": the topology has no path between them (a topology file is missing a link"
                + " or a NIC)");
      }
    }
    return out;
  }

  private static boolean canPassThrough(Topology t, int node, int src) {
    return node == src || !t.node(node).type().isRankDevice();
  }

  private static double[] widest(Topology t, int src) {
    double[] best = new double[t.nodes().size()];
    best[src] = Double.POSITIVE_INFINITY;
    PriorityQueue<double[]> pq = new PriorityQueue<>((x, y) -> Double.compare(y[0], x[0]));
    pq.add(new double[] {best[src], src});
    boolean[] done = new boolean[best.length];
    while (!pq.isEmpty()) {
      double[] top = pq.poll();
      int u = (int) top[1];
      if (done[u]) {
        continue;
      }
      done[u] = true;
      if (!canPassThrough(t, u, src)) {
        continue;
      }
      for (int lid : t.linksOf(u)) {
        Link l = t.link(lid);
        int v = l.other(u);
        double w = Math.min(best[u], l.gbps());
        if (w > best[v]) {
          best[v] = w;
          pq.add(new double[] {w, v});
        }
      }
    }
    return best;
  }

  private static int[] bfs(Topology t, int src, double minGbps, int n) {
    int[] parentLink = new int[n];
    Arrays.fill(parentLink, -2);
    parentLink[src] = -1;
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    queue.add(src);
    while (!queue.isEmpty()) {
      int u = queue.poll();
      if (!canPassThrough(t, u, src)) {
        continue;
      }
      for (int lid : t.linksOf(u)) {
        Link l = t.link(lid);
        int v = l.other(u);
        if (parentLink[v] == -2 && l.gbps() >= minGbps) {
          parentLink[v] = lid;
          queue.add(v);
        }
      }
    }
    return parentLink;
  }

  private static Route build(Topology t, int from, int to, int src, int dst, int[] parentLink) {
    int len = 0;
    for (int v = dst; v != src; v = t.link(parentLink[v]).other(v)) {
      len++;
    }
    int[] hops = new int[len];
    int[] via = new int[Math.max(0, len - 1)];
    double gbps = Double.POSITIVE_INFINITY;
    double latency = 0;
    int k = len;
    for (int v = dst; v != src; ) {
      Link l = t.link(parentLink[v]);
      int u = l.other(v);
      hops[--k] = l.directedFrom(u);
      if (k > 0) {
        via[k - 1] = u;
      }
      gbps = Math.min(gbps, l.gbps());
      latency += l.latencyUs();
      v = u;
    }
    return classify(t, from, to, hops, via, gbps, latency);
  }

  private static Route classify(
      Topology t, int from, int to, int[] hops, int[] via, double gbps, double latency) {
    boolean allNvl = true;
    boolean net = false;
    boolean sys = false;
    int lanes = Integer.MAX_VALUE;
    for (int h : hops) {
      Link l = t.link(Route.linkOf(h));
      allNvl &= l.type() == LinkType.NVL;
      net |= l.type() == LinkType.NET;
      sys |= l.type() == LinkType.SYS;
      if (l.type() == LinkType.NVL) {
        lanes = Math.min(lanes, l.lanes());
      }
    }
    boolean allLoc = hops.length > 0;
    for (int h : hops) {
      allLoc &= t.link(Route.linkOf(h)).type() == LinkType.LOC;
    }
    PathType type;
    if (allLoc) {
      type = PathType.LOC;
    } else if (allNvl) {
      type = PathType.NV;
    } else if (net) {
      type = PathType.NET;
    } else if (sys) {
      type = PathType.SYS;
    } else {
      int switches = 0;
      boolean cpu = false;
      boolean hostBridge = false;
      for (int v : via) {
        NodeType nt = t.node(v).type();
        switches += nt == NodeType.PCI_SWITCH ? 1 : 0;
        cpu |= nt == NodeType.CPU;
        hostBridge |= nt == NodeType.HOST_BRIDGE;
      }
      if (cpu) {
        type = hostBridge ? PathType.NODE : PathType.PHB;
      } else if (hostBridge) {
        type = PathType.PHB;
      } else {
        type = switches <= 1 ? PathType.PIX : PathType.PXB;
      }
    }
    return new Route(from, to, hops, gbps, latency, type, type == PathType.NV ? lanes : 0);
  }
}
