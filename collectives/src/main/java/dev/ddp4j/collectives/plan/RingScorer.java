package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Bandwidths;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;

/**
 * Scores rings on a topology, counting shared links: every ring hop is a flow over the directed
 * links of its route, and a link carrying f flows gives each {@code bandwidth / f}. Flows of
 * channels already chosen ({@code baseFlows}) count too, so a second ring avoids what the first
 * uses.
 */
public final class RingScorer {

  private final Topology t;
  private final int[] devices;
  private final int[] baseFlows;
  private final double[] gbps;

  /**
   * @param devices device index of each ring position's rank (rank r runs on devices[r])
   * @param baseFlows flows per directed link already there (length 2 * links), or null
   */
  public RingScorer(Topology t, int[] devices, int[] baseFlows) {
    this.t = t;
    this.devices = devices;
    int links = t.links().size();
    this.baseFlows = baseFlows == null ? new int[2 * links] : baseFlows;
    this.gbps = new double[2 * links];
    for (int i = 0; i < links; i++) {
      gbps[2 * i] = t.link(i).gbps();
      gbps[2 * i + 1] = t.link(i).gbps();
    }
  }

  int[] newFlows() {
    return baseFlows.clone();
  }

  /** Route of the hop from rank a to rank b. */
  Route route(int a, int b) {
    return t.route(devices[a], devices[b]);
  }

  /** What the hop a -> b can carry at most besides its links: staged where it lacks peer access. */
  double capGbps(int a, int b) {
    return t.peerAccess(devices[a], devices[b])
        ? Double.POSITIVE_INFINITY
        : Bandwidths.HOST_STAGED_GBPS;
  }

  /** Adds (+1) or removes (-1) the hop a -> b to the flow counts. */
  void apply(int[] flows, int a, int b, int delta) {
    for (int h : route(a, b).hops()) {
      flows[h] += delta;
    }
  }

  /** The score of the hops {@code order[0] -> order[1] -> ... -> order[len-1]} (plus closing). */
  RingScore score(int[] flows, int[] order, int len, boolean closed) {
    double bottleneck = Double.POSITIVE_INFINITY;
    int hops = closed ? len : len - 1;
    for (int i = 0; i < hops; i++) {
      bottleneck = Math.min(bottleneck, capGbps(order[i], order[(i + 1) % len]));
      for (int h : route(order[i], order[(i + 1) % len]).hops()) {
        bottleneck = Math.min(bottleneck, gbps[h] / flows[h]);
      }
    }
    int atBottleneck = 0;
    for (int i = 0; i < hops; i++) {
      if (capGbps(order[i], order[(i + 1) % len]) <= bottleneck * (1 + RingScore.EPS)) {
        atBottleneck++;
        continue;
      }
      for (int h : route(order[i], order[(i + 1) % len]).hops()) {
        if (gbps[h] / flows[h] <= bottleneck * (1 + RingScore.EPS)) {
          atBottleneck++;
          break;
        }
      }
    }
    return new RingScore(bottleneck, atBottleneck);
  }

  /** Whether the hop a -> b crosses a link that one more flow would bring to {@code b} or below. */
  boolean crossesBottleneck(int[] flows, int a, int b, double bottleneckGbps) {
    if (capGbps(a, b) <= bottleneckGbps * (1 + RingScore.EPS)) {
      return true;
    }
    for (int h : route(a, b).hops()) {
      if (gbps[h] / (flows[h] + 1) <= bottleneckGbps * (1 + RingScore.EPS)) {
        return true;
      }
    }
    return false;
  }

  /** The score of a whole ring (a permutation of ranks) on top of the base flows. */
  public RingScore score(int[] ring) {
    int[] flows = newFlows();
    for (int i = 0; i < ring.length; i++) {
      apply(flows, ring[i], ring[(i + 1) % ring.length], 1);
    }
    return score(flows, ring, ring.length, true);
  }
}
