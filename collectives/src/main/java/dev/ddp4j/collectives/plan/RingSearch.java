package dev.ddp4j.collectives.plan;

import java.util.Arrays;

/**
 * Finds the ring through a set of ranks with the best {@link RingScore}: exactly, by branch and
 * bound over the orders starting at the lowest rank, up to {@link #EXACT_LIMIT} ranks; beyond, by
 * greedy construction and 2-opt improvement. Among equally good rings the lexicographically first
 * is returned, so every rank finds the same ring.
 *
 * <p>The bound is sound because adding a hop to a path never raises its bottleneck and never lowers
 * its count of hops at an unchanged bottleneck: a partial path that is not strictly better than the
 * best ring found cannot be completed into one that is.
 */
public final class RingSearch {

  /** Largest ring searched exhaustively (9! partial orders at worst). */
  public static final int EXACT_LIMIT = 10;

  private RingSearch() {}

  /** The best ring through {@code members} (rank ids), first element the lowest rank. */
  public static int[] best(RingScorer s, int[] members) {
    int[] sorted = members.clone();
    Arrays.sort(sorted);
    if (sorted.length <= 2) {
      return sorted;
    }
    return sorted.length <= EXACT_LIMIT ? exact(s, sorted) : improve(s, greedy(s, sorted));
  }

  static int[] exact(RingScorer s, int[] sorted) {
    Search search = new Search(s, sorted);
    search.order[0] = sorted[0];
    search.used[0] = true;
    search.dfs(1);
    return search.bestOrder;
  }

  private static final class Search {
    final RingScorer s;
    final int[] members;
    final int[] order;
    final boolean[] used;
    final int[] flows;
    int[] bestOrder;
    RingScore bestScore = RingScore.worst();

    Search(RingScorer s, int[] members) {
      this.s = s;
      this.members = members;
      this.order = new int[members.length];
      this.used = new boolean[members.length];
      this.flows = s.newFlows();
    }

    /**
     * Whether the path {@code order[0..len)} may still complete into a strictly better ring. Past
     * the plain bound, counts the hops still to come that must be at the bottleneck: a member not
     * yet on the path whose every possible incoming route crosses a link already at the bottleneck
     * with one more flow (on NVSwitch every hop is such a hop, which prunes the symmetric search).
     */
    boolean promising(int len) {
      RingScore partial = s.score(flows, order, len, false);
      if (partial.compareTo(bestScore) <= 0) {
        return false;
      }
      if (partial.bottleneckGbps() > bestScore.bottleneckGbps() * (1 + RingScore.EPS)) {
        return true;
      }
      double b = partial.bottleneckGbps();
      boolean[] onPath = new boolean[members.length];
      for (int p = 0; p < len; p++) {
        onPath[indexOf(order[p])] = true;
      }
      boolean anyLeft = len < members.length;
      int last = order[len - 1];
      int forced = 0;
      for (int i = 0; i < members.length; i++) {
        boolean first = members[i] == order[0];
        if (onPath[i] && !first) {
          continue;
        }
        // Who can send the hop entering members[i]: members not on the path, or the path's end
        // (the end closes the ring only when nobody is left).
        boolean all = true;
        for (int j = 0; j < members.length && all; j++) {
          boolean sender = j != i && (!onPath[j] || (members[j] == last && (!first || !anyLeft)));
          if (sender) {
            all = s.crossesBottleneck(flows, members[j], members[i], b);
          }
        }
        forced += all ? 1 : 0;
      }
      return partial.hopsAtBottleneck() + forced < bestScore.hopsAtBottleneck();
    }

    private int indexOf(int rank) {
      for (int i = 0; i < members.length; i++) {
        if (members[i] == rank) {
          return i;
        }
      }
      throw new IllegalStateException("rank " + rank + " is not a member");
    }

    void dfs(int depth) {
      int n = members.length;
      if (depth == n) {
        s.apply(flows, order[n - 1], order[0], 1);
        RingScore score = s.score(flows, order, n, true);
        if (score.compareTo(bestScore) > 0) {
          bestScore = score;
          bestOrder = order.clone();
        }
        s.apply(flows, order[n - 1], order[0], -1);
        return;
      }
      for (int i = 1; i < n; i++) {
        if (used[i]) {
          continue;
        }
        order[depth] = members[i];
        s.apply(flows, order[depth - 1], order[depth], 1);
        if (bestOrder == null || promising(depth + 1)) {
          used[i] = true;
          dfs(depth + 1);
          used[i] = false;
        }
        s.apply(flows, order[depth - 1], order[depth], -1);
      }
    }
  }

  /** Nearest-neighbour construction: append the member that keeps the path's score best. */
  static int[] greedy(RingScorer s, int[] sorted) {
    int n = sorted.length;
    int[] order = new int[n];
    boolean[] used = new boolean[n];
    int[] flows = s.newFlows();
    order[0] = sorted[0];
    used[0] = true;
    for (int depth = 1; depth < n; depth++) {
      int pick = -1;
      RingScore pickScore = RingScore.worst();
      for (int i = 1; i < n; i++) {
        if (used[i]) {
          continue;
        }
        order[depth] = sorted[i];
        s.apply(flows, order[depth - 1], sorted[i], 1);
        RingScore sc = s.score(flows, order, depth + 1, false);
        s.apply(flows, order[depth - 1], sorted[i], -1);
        if (pick < 0 || sc.compareTo(pickScore) > 0) {
          pick = i;
          pickScore = sc;
        }
      }
      order[depth] = sorted[pick];
      used[pick] = true;
      s.apply(flows, order[depth - 1], order[depth], 1);
    }
    return order;
  }

  /** 2-opt: reverse segments while that strictly improves the score; bounded passes. */
  static int[] improve(RingScorer s, int[] ring) {
    int n = ring.length;
    int[] best = ring.clone();
    RingScore bestScore = s.score(best);
    for (int pass = 0; pass < 4 && n <= 64; pass++) {
      boolean improved = false;
      for (int i = 1; i < n - 1; i++) {
        for (int j = i + 1; j < n; j++) {
          int[] cand = best.clone();
          for (int a = i, b = j; a < b; a++, b--) {
            int tmp = cand[a];
            cand[a] = cand[b];
            cand[b] = tmp;
          }
          RingScore sc = s.score(cand);
          if (sc.compareTo(bestScore) > 0) {
            best = cand;
            bestScore = sc;
            improved = true;
          }
        }
      }
      if (!improved) {
        break;
      }
    }
    return best;
  }
}
