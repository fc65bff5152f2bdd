package dev.ddp4j.collectives.schedule;

import java.util.List;

/**
 * Compiles the hierarchical all-reduce: ranks form {@code m} islands of {@code k} (NVLink groups,
 * or hosts), each island ordered as its ring. The buffer runs as a pipeline of chunks, each chunk
 * in three phases, on every channel's segment of it:
 *
 * <pre>
 *   RS(i): reduce-scatter around each island's ring: island position j owns block j (1/k of it)
 *   X(i):  all-reduce of block j around the ring of position-j members of every island (1/k of the
 *          data crosses the slow links, instead of a flat ring's 2(n-1)/n)
 *   AG(i): all-gather around each island's ring
 * </pre>
 *
 * Each program lists them as the cuda executor queues them, {@code RS(0) X(0) RS(1) AG(0) X(1)
 * RS(2) AG(1) ... AG(last)}: the island's phases keep that order among themselves (they share its
 * peers), and the column's on lane 1 runs X(i) while the island works on chunk i + 1, because an
 * executor may start a step before earlier unfinished ones that touch neither its peer nor its
 * bytes ({@link StepOrder}).
 *
 * <p>Even channels run the rings forwards, odd channels backwards, so both directions of every link
 * carry data.
 */
public final class HierarchicalSchedules {

  /** The algorithm name these schedules carry. */
  public static final String ALGORITHM = "hierarchical";

  /** The lane of the column's steps. */
  public static final int COLUMN_LANE = 1;

  private HierarchicalSchedules() {}

  /**
   * @param islands rank ids of each island in ring order; equal sizes; together every rank once
   * @param count elements of the working buffer
   * @param channels channels (each runs on its own segment of every chunk)
   * @param chunks pipeline chunks the buffer runs as (the plan's choice for its size)
   */
  public static Schedule allReduce(
      List<int[]> islands, long count, int channels, long maxStepElements, int chunks) {
    int m = islands.size();
    int k = islands.get(0).length;
    int n = m * k;
    for (int[] island : islands) {
      if (island.length != k) {
        throw new IllegalArgumentException(
            "islands of sizes " + k + " and " + island.length + " (expected: equal sizes)");
      }
    }
    if (channels < 1 || maxStepElements < 1 || chunks < 1) {
      throw new IllegalArgumentException(
          "channels "
              + channels
              + ", maxStepElements "
              + maxStepElements
              + ", chunks "
              + chunks
              + " (expected: >= 1)");
    }
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, channels);
    for (int c = 0; c < channels; c++) {
      boolean backwards = c % 2 == 1;
      Segment previous = null;
      for (int i = 0; i < chunks; i++) {
        long chunkStart = ChunkLayout.partStart(count, chunks, i);
        long chunkLen = ChunkLayout.partStart(count, chunks, i + 1) - chunkStart;
        long segStart = chunkStart + ChunkLayout.partStart(chunkLen, channels, c);
        long segLen = chunkStart + ChunkLayout.partStart(chunkLen, channels, c + 1) - segStart;
        Segment seg =
            new Segment(RingPhase.offsets(segStart, segLen, k), RingPhase.lengths(segLen, k));
        islandPhase(programs, c, islands, backwards, seg, true, maxStepElements);
        if (previous != null) {
          islandPhase(programs, c, islands, backwards, previous, false, maxStepElements);
        }
        columnPhase(programs, c, islands, backwards, seg, maxStepElements);
        previous = seg;
      }
      islandPhase(programs, c, islands, backwards, previous, false, maxStepElements);
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, ALGORITHM, n, count, -1, RingPhase.toRankSchedules(programs));
  }

  /** One channel's part of one chunk: its k blocks. */
  private record Segment(long[] blockOff, long[] blockLen) {}

  /** RS (scatter) or AG of {@code seg} around every island's ring. */
  private static void islandPhase(
      List<List<List<Step>>> programs,
      int c,
      List<int[]> islands,
      boolean backwards,
      Segment seg,
      boolean scatter,
      long maxStepElements) {
    for (int[] island : islands) {
      RingPhase.emit(
          programs,
          c,
          oriented(island, backwards),
          seg.blockOff(),
          seg.blockLen(),
          scatter,
          !scatter,
          maxStepElements,
          0);
    }
  }

  /** X: block j of {@code seg} all-reduced around the ring of every island's position j. */
  private static void columnPhase(
      List<List<List<Step>>> programs,
      int c,
      List<int[]> islands,
      boolean backwards,
      Segment seg,
      long maxStepElements) {
    int m = islands.size();
    int k = islands.get(0).length;
    for (int j = 0; j < k; j++) {
      int[] group = new int[m];
      for (int i = 0; i < m; i++) {
        // Position j of the island's ring in this channel's direction owns block j.
        group[i] = oriented(islands.get(i), backwards)[j];
      }
      long off = seg.blockOff()[j];
      long len = seg.blockLen()[j];
      RingPhase.emit(
          programs,
          c,
          oriented(group, backwards),
          RingPhase.offsets(off, len, m),
          RingPhase.lengths(len, m),
          true,
          true,
          maxStepElements,
          COLUMN_LANE);
    }
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
