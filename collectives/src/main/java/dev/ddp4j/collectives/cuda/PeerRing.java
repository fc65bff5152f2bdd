package dev.ddp4j.collectives.cuda;

import java.util.Arrays;

/**
 * An exact search for a ring through every rank of a cuda group that uses only pairs with peer
 * access, for groups where some pairs lack it ({@code DDP4J_P2P_DISABLE_PAIRS}, the driver's
 * answer): the ring all-reduce kernel then writes only into each rank's ring successor, so the
 * pairs off the ring need no peer path. Of those rings it takes the one whose slowest hop is
 * fastest (then the largest sum of hop bandwidths), as NCCL's ring search does, so that on a
 * machine with links of several widths the ring keeps to the wide ones. Depth-first over the orders
 * that start at rank 0, trying lower ranks first and keeping the first of equal rings, so every
 * rank, given the same pairs and bandwidths, finds the same ring. At most {@link
 * ScratchLayout#MAX_RANKS} ranks: 7! orders at worst.
 */
final class PeerRing {

  private PeerRing() {}

  /**
   * The first ring (rank order, starting at 0) in which every pair of neighbours, the last and the
   * first included, has {@code peer[a][b]}; null when there is none or fewer than 3 ranks (a ring
   * of 2 uses the only pair).
   */
  static int[] find(boolean[][] peer) {
    return find(peer, null);
  }

  /**
   * As {@link #find(boolean[][])}, choosing among the rings by {@code gbps[a][b]}, the bandwidth
   * from rank a's GPU to rank b's (null, or a negative entry: unknown, counted as equal to every
   * other unknown).
   */
  static int[] find(boolean[][] peer, double[][] gbps) {
    int n = peer.length;
    if (n < 3 || n > ScratchLayout.MAX_RANKS) {
      return null;
    }
    Search s = new Search(peer, gbps);
    s.order[0] = 0;
    s.used[0] = true;
    s.extend(1, Double.POSITIVE_INFINITY, 0);
    return s.best;
  }

  /** The depth-first search's state: the order being built and the best ring so far. */
  private static final class Search {
    final boolean[][] peer;
    final double[][] gbps;
    final int[] order;
    final boolean[] used;
    int[] best;
    double bestBottleneck = -1;
    double bestSum = -1;

    Search(boolean[][] peer, double[][] gbps) {
      this.peer = peer;
      this.gbps = gbps;
      this.order = new int[peer.length];
      this.used = new boolean[peer.length];
    }

    double hop(int a, int b) {
      return gbps == null || gbps[a][b] < 0 ? 1 : gbps[a][b];
    }

    void extend(int depth, double bottleneck, double sum) {
      int n = order.length;
      int last = order[depth - 1];
      if (depth == n) {
        if (peer[last][order[0]]) {
          double b = Math.min(bottleneck, hop(last, order[0]));
          double total = sum + hop(last, order[0]);
          if (b > bestBottleneck || (b == bestBottleneck && total > bestSum)) {
            best = order.clone();
            bestBottleneck = b;
            bestSum = total;
          }
        }
        return;
      }
      for (int r = 0; r < n; r++) {
        if (!used[r] && peer[last][r]) {
          used[r] = true;
          order[depth] = r;
          extend(depth + 1, Math.min(bottleneck, hop(last, r)), sum + hop(last, r));
          used[r] = false;
        }
      }
    }
  }

  /** The ring packed for the kernel: the rank at position k in bits [4k, 4k + 4). */
  static long pack(int[] ring) {
    long packed = 0;
    for (int k = 0; k < ring.length; k++) {
      packed |= (long) ring[k] << (4 * k);
    }
    return packed;
  }

  /** The natural ring 0, 1, ..., n-1. */
  static int[] natural(int n) {
    int[] ring = new int[n];
    Arrays.setAll(ring, i -> i);
    return ring;
  }

  /** The rank after {@code rank} on {@code ring}. */
  static int next(int[] ring, int rank) {
    for (int k = 0; k < ring.length; k++) {
      if (ring[k] == rank) {
        return ring[(k + 1) % ring.length];
      }
    }
    throw new IllegalArgumentException(
        "rank " + rank + " is not on the ring " + Arrays.toString(ring));
  }
}
