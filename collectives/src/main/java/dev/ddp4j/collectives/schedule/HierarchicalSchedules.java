package dev.ddp4j.collectives.schedule;

import java.util.List;

/**
 * Compiles the hierarchical all-reduce: ranks form {@code m} islands of {@code k} (NVLink groups,
 * or hosts), each island ordered as its ring. Per channel, on that channel's segment of the buffer:
 *
 * <pre>
 *   1. reduce-scatter around each island's ring: island position j owns block j (1/k of the segment)
 *   2. all-reduce of block j around the ring of position-j members of every island (1/k of the data
 *      crosses the slow links, instead of a flat ring's 2(n-1)/n)
 *   3. all-gather around each island's ring
 * </pre>
 *
 * Even channels run the rings forwards, odd channels backwards, so both directions of every link
 * carry data.
 */
public final class HierarchicalSchedules {

  /** The algorithm name these schedules carry. */
  public static final String ALGORITHM = "hierarchical";

  private HierarchicalSchedules() {}

  /**
   * @param islands rank ids of each island in ring order; equal sizes; together every rank once
   * @param count elements of the working buffer
   * @param channels channels (each runs on its own segment)
   */
  public static Schedule allReduce(
      List<int[]> islands, long count, int channels, long maxStepElements) {
    int m = islands.size();
    int k = islands.get(0).length;
    int n = m * k;
    for (int[] island : islands) {
      if (island.length != k) {
        throw new IllegalArgumentException(
            "islands of sizes " + k + " and " + island.length + " (expected: equal sizes)");
      }
    }
    if (channels < 1 || maxStepElements < 1) {
      throw new IllegalArgumentException(
          "channels " + channels + ", maxStepElements " + maxStepElements + " (expected: >= 1)");
    }
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, channels);
    for (int c = 0; c < channels; c++) {
      long segStart = ChunkLayout.partStart(count, channels, c);
      long segLen = ChunkLayout.partStart(count, channels, c + 1) - segStart;
      boolean backwards = c % 2 == 1;
      long[] blockOff = RingPhase.offsets(segStart, segLen, k);
      long[] blockLen = RingPhase.lengths(segLen, k);
      for (int[] island : islands) {
        RingPhase.emit(
            programs,
            c,
            oriented(island, backwards),
            blockOff,
            blockLen,
            true,
            false,
            maxStepElements);
      }
      for (int j = 0; j < k; j++) {
        int[] group = new int[m];
        for (int i = 0; i < m; i++) {
          // Position j of the island's ring in this channel's direction owns block j.
          group[i] = oriented(islands.get(i), backwards)[j];
        }
        RingPhase.emit(
            programs,
            c,
            oriented(group, backwards),
            RingPhase.offsets(blockOff[j], blockLen[j], m),
            RingPhase.lengths(blockLen[j], m),
            true,
            true,
            maxStepElements);
      }
      for (int[] island : islands) {
        RingPhase.emit(
            programs,
            c,
            oriented(island, backwards),
            blockOff,
            blockLen,
            false,
            true,
            maxStepElements);
      }
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, ALGORITHM, n, count, -1, RingPhase.toRankSchedules(programs));
  }

  private static int[] oriented(int[] ring, boolean backwards) {
    if (!backwards) {
      return ring;
    }
    int[] out = new int[ring.length];
    for (int i = 0; i < ring.length; i++) {
      out[i] = ring[Math.floorMod(-i, ring.length)];
    }
    return out;
  }
}
