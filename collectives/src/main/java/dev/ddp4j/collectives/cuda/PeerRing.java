package dev.ddp4j.collectives.cuda;

import java.util.Arrays;

/**
 * An exact search for a ring through every rank of a cuda group that uses only pairs with peer
 * access, for groups where some pairs lack it ({@code DDP4J_P2P_DISABLE_PAIRS}, the driver's
 * answer): the ring all-reduce kernel then writes only into each rank's ring successor, so the
 * pairs off the ring need no peer path. Depth-first over the orders that start at rank 0, trying
 * lower ranks first, so the answer is the lexicographically first such ring and every rank, given
 * the same pairs, finds the same one. At most {@link ScratchLayout#MAX_RANKS} ranks: 7! orders at
 * worst.
 */
final class PeerRing {

  private PeerRing() {}

  /**
   * The first ring (rank order, starting at 0) in which every pair of neighbours, the last and the
   * first included, has {@code peer[a][b]}; null when there is none or fewer than 3 ranks (a ring
   * of 2 uses the only pair).
   */
  static int[] find(boolean[][] peer) {
    int n = peer.length;
    if (n < 3 || n > ScratchLayout.MAX_RANKS) {
      return null;
    }
    int[] order = new int[n];
    boolean[] used = new boolean[n];
    used[0] = true;
    return extend(peer, order, used, 1) ? order : null;
  }

  private static boolean extend(boolean[][] peer, int[] order, boolean[] used, int depth) {
    int n = order.length;
    int last = order[depth - 1];
    if (depth == n) {
      return peer[last][order[0]];
    }
    for (int r = 0; r < n; r++) {
      if (!used[r] && peer[last][r]) {
        used[r] = true;
        order[depth] = r;
        if (extend(peer, order, used, depth + 1)) {
          return true;
        }
        used[r] = false;
      }
    }
    return false;
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
