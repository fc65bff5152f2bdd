package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Topology;

/** Lets the planning benchmark time the ring search against brute force. */
public final class BruteForceAccess {
  private BruteForceAccess() {}

  private static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  public static RingScore exactRing(Topology t, int n) {
    RingScorer s = new RingScorer(t, identity(n), null);
    return s.score(RingSearch.exact(s, identity(n)));
  }

  public static RingScore bruteForceRing(Topology t, int n) {
    return BruteForce.bestScore(new RingScorer(t, identity(n), null), n);
  }
}
