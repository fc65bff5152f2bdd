package dev.ddp4j.collectives.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Two balanced binary trees over the same ranks laid out along a ring order, so tree edges join
 * ranks that are close in the topology. The second tree is the first built over the order shifted
 * by one, which makes most leaves of one tree inner nodes of the other (each rank then sends and
 * receives about the same amount in total, as in NCCL's double binary tree).
 *
 * @param parents per tree, the parent rank of every rank ({@code -1} for the root)
 */
public record DoubleTree(List<int[]> parents) {

  /** Builds both trees over {@code order} (a permutation of 0..n-1). */
  public static DoubleTree over(int[] order) {
    int n = order.length;
    int[] shifted = new int[n];
    for (int i = 0; i < n; i++) {
      shifted[i] = order[(i + 1) % n];
    }
    return new DoubleTree(List.of(tree(order), tree(shifted)));
  }

  private static int[] tree(int[] order) {
    int[] parent = new int[order.length];
    link(order, 0, order.length - 1, -1, parent);
    return parent;
  }

  /** In-order layout: the middle of [lo, hi] is the root of that span. */
  private static void link(int[] order, int lo, int hi, int parentRank, int[] parent) {
    if (lo > hi) {
      return;
    }
    int mid = (lo + hi) >>> 1;
    parent[order[mid]] = parentRank;
    link(order, lo, mid - 1, order[mid], parent);
    link(order, mid + 1, hi, order[mid], parent);
  }

  /** Children of {@code rank} in tree {@code t}, in rank order. */
  public List<Integer> children(int t, int rank) {
    List<Integer> out = new ArrayList<>();
    int[] p = parents.get(t);
    for (int r = 0; r < p.length; r++) {
      if (p[r] == rank) {
        out.add(r);
      }
    }
    return out;
  }

  /** The root of tree {@code t}. */
  public int root(int t) {
    int[] p = parents.get(t);
    for (int r = 0; r < p.length; r++) {
      if (p[r] < 0) {
        return r;
      }
    }
    throw new IllegalStateException("tree " + t + " has no root");
  }

  /** Edges from the root to the deepest leaf of tree {@code t}. */
  public int depth(int t) {
    int[] p = parents.get(t);
    int max = 0;
    for (int r = 0; r < p.length; r++) {
      int d = 0;
      for (int x = r; p[x] >= 0; x = p[x]) {
        d++;
      }
      max = Math.max(max, d);
    }
    return max;
  }
}
