package dev.ddp4j.collectives.cpu;

/** Ring arithmetic for the cpu group's route lines. */
final class RingOrder {

  private RingOrder() {}

  /** The rank after {@code rank} on {@code ring}. */
  static int next(int[] ring, int rank) {
    for (int p = 0; p < ring.length; p++) {
      if (ring[p] == rank) {
        return ring[(p + 1) % ring.length];
      }
    }
    throw new IllegalArgumentException("rank " + rank + " is not on the ring");
  }
}
