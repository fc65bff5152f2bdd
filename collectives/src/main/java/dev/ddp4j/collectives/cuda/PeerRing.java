package dev.ddp4j.collectives.cuda;

import java.util.Arrays;

/**
 * The ring kernel's rank order, packed as its Params want it (a byte a position), and the
 * neighbours of a rank on it. The order itself is the planner's first ring ({@link GpuPlanning}).
 */
final class PeerRing {

  private PeerRing() {}

  /**
   * The ring as the kernels' {@code Params.ring[MAX_RANKS]} holds it: byte k is the rank at ring
   * position k, the bytes past the ring 0.
   */
  static byte[] pack(int[] ring) {
    if (ring.length > ScratchLayout.MAX_RANKS) {
      throw new IllegalArgumentException(
          "ring of "
              + ring.length
              + " ranks (expected: at most "
              + ScratchLayout.MAX_RANKS
              + ", the kernels' MAX_RANKS)");
    }
    byte[] packed = new byte[ScratchLayout.MAX_RANKS];
    for (int k = 0; k < ring.length; k++) {
      packed[k] = (byte) ring[k];
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

  /** The rank before {@code rank} on {@code ring}. */
  static int prev(int[] ring, int rank) {
    for (int k = 0; k < ring.length; k++) {
      if (ring[k] == rank) {
        return ring[(k + ring.length - 1) % ring.length];
      }
    }
    throw new IllegalArgumentException(
        "rank " + rank + " is not on the ring " + Arrays.toString(ring));
  }
}
