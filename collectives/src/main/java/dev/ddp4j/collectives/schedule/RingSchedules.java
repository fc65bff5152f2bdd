package dev.ddp4j.collectives.schedule;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Compiles ring algorithms into {@link Schedule}s. Channel {@code c} runs around {@code rings[c]}
 * (a permutation of the ranks; the planner picks them, e.g. one per NVLink ring and direction) on
 * its own part of the buffer.
 *
 * <p>Each chunk is cut into slices of at most {@code maxStepElements} so that one step fits a
 * transport slot and ranks pipeline: a rank forwards slice {@code s} while its neighbour is still
 * receiving slice {@code s+1}. For a rank at ring position {@code p} of {@code n}, with chunk
 * {@code q} meaning the buffer part of rank {@code rings[c][q]}, the reduce-scatter phase is, for
 * {@code k = 0 .. n-2}:
 *
 * <pre>
 *   SEND chunk (p-k-1) to next;  RECV_REDUCE chunk (p-k-2) from prev     -> position p ends owning chunk p
 * </pre>
 *
 * and the all-gather phase: {@code SEND chunk (p-k) to next; RECV_COPY chunk (p-k-1) from prev}.
 * All-reduce is the two phases back to back; broadcast is a pipelined chain from the root along the
 * ring.
 */
public final class RingSchedules {

  /** The algorithm name these schedules carry. */
  public static final String ALGORITHM = "ring";

  private RingSchedules() {}

  /** All-reduce of {@code count} elements. */
  public static Schedule allReduce(int[][] rings, long count, long maxStepElements) {
    int n = checkRings(rings);
    ChunkLayout layout = ChunkLayout.segmented(count, rings.length, n);
    return build(CollectiveKind.ALL_REDUCE, rings, count, -1, maxStepElements, layout, true, true);
  }

  /**
   * Reduce-scatter of {@code blockCount} elements per rank (working buffer: {@code n *
   * blockCount}).
   */
  public static Schedule reduceScatter(int[][] rings, long blockCount, long maxStepElements) {
    int n = checkRings(rings);
    long count = Math.multiplyExact(blockCount, (long) n);
    ChunkLayout layout = ChunkLayout.byRankBlock(count, rings.length, n);
    return build(
        CollectiveKind.REDUCE_SCATTER, rings, count, -1, maxStepElements, layout, true, false);
  }

  /**
   * All-gather of {@code blockCount} elements per rank (working buffer: {@code n * blockCount}).
   */
  public static Schedule allGather(int[][] rings, long blockCount, long maxStepElements) {
    int n = checkRings(rings);
    long count = Math.multiplyExact(blockCount, (long) n);
    ChunkLayout layout = ChunkLayout.byRankBlock(count, rings.length, n);
    return build(CollectiveKind.ALL_GATHER, rings, count, -1, maxStepElements, layout, false, true);
  }

  /** Broadcast of {@code count} elements from {@code root}, pipelined along each channel's ring. */
  public static Schedule broadcast(int[][] rings, int root, long count, long maxStepElements) {
    return broadcast(rings, root, count, maxStepElements, false);
  }

  /**
   * As {@link #broadcast(int[][], int, long, long)}; with {@code confirmToRoot}, the last rank of
   * each chain then sends the segment's last element back to the root (which receives its own
   * value). Without it the root only sends, so a root that the other ranks do not agree on is never
   * told; with it the root waits for a piece whose header must match its own, which names both
   * sides at the call when ranks pass different roots (for one extra 1-element hop).
   */
  public static Schedule broadcast(
      int[][] rings, int root, long count, long maxStepElements, boolean confirmToRoot) {
    int n = checkRings(rings);
    if (root < 0 || root >= n) {
      throw new IllegalArgumentException(
          "root " + root + " is not a rank (expected: 0 <= root < " + n + ")");
    }
    checkMaxStep(maxStepElements);
    ChunkLayout layout = ChunkLayout.segmented(count, rings.length, 1);
    List<List<List<Step>>> programs = emptyPrograms(n, rings.length);
    for (int c = 0; c < rings.length; c++) {
      int[] ring = rings[c];
      int rootPos = positionOf(ring, root);
      long len = layout.length(c, 0);
      int slices = sliceCount(len, maxStepElements);
      for (int p = 0; p < n; p++) {
        int chainPos = Math.floorMod(p - rootPos, n);
        int rank = ring[p];
        int next = ring[(p + 1) % n];
        int prev = ring[Math.floorMod(p - 1, n)];
        List<Step> steps = programs.get(rank).get(c);
        for (int s = 0; s < slices; s++) {
          long off = layout.offset(c, 0) + ChunkLayout.partStart(len, slices, s);
          long sliceLen =
              ChunkLayout.partStart(len, slices, s + 1) - ChunkLayout.partStart(len, slices, s);
          if (sliceLen == 0) {
            continue;
          }
          if (chainPos > 0) {
            steps.add(Step.recvCopy(prev, off, sliceLen));
          }
          if (chainPos < n - 1) {
            steps.add(Step.send(next, off, sliceLen));
          }
        }
        if (confirmToRoot && n > 1 && len > 0) {
          long last = layout.offset(c, 0) + len - 1;
          if (chainPos == n - 1) {
            steps.add(Step.send(next, last, 1)); // next of the chain's tail is the root
          } else if (chainPos == 0) {
            steps.add(Step.recvCopy(prev, last, 1));
          }
        }
      }
    }
    return new Schedule(
        CollectiveKind.BROADCAST, ALGORITHM, n, count, root, toRankSchedules(programs));
  }

  private static Schedule build(
      CollectiveKind kind,
      int[][] rings,
      long count,
      int root,
      long maxStepElements,
      ChunkLayout layout,
      boolean reducePhase,
      boolean gatherPhase) {
    checkMaxStep(maxStepElements);
    int n = rings[0].length;
    List<List<List<Step>>> programs = emptyPrograms(n, rings.length);
    for (int c = 0; c < rings.length; c++) {
      int[] ring = rings[c];
      long longest = 0;
      for (int q = 0; q < n; q++) {
        longest = Math.max(longest, layout.length(c, ring[q]));
      }
      int slices = sliceCount(longest, maxStepElements);
      for (int p = 0; p < n; p++) {
        int rank = ring[p];
        int next = ring[(p + 1) % n];
        int prev = ring[Math.floorMod(p - 1, n)];
        List<Step> steps = programs.get(rank).get(c);
        for (int s = 0; s < slices; s++) {
          for (int k = 0; reducePhase && k < n - 1; k++) {
            addSlice(
                steps,
                StepKind.SEND,
                next,
                layout,
                c,
                ring[Math.floorMod(p - k - 1, n)],
                slices,
                s);
            addSlice(
                steps,
                StepKind.RECV_REDUCE,
                prev,
                layout,
                c,
                ring[Math.floorMod(p - k - 2, n)],
                slices,
                s);
          }
          for (int k = 0; gatherPhase && k < n - 1; k++) {
            addSlice(
                steps, StepKind.SEND, next, layout, c, ring[Math.floorMod(p - k, n)], slices, s);
            addSlice(
                steps,
                StepKind.RECV_COPY,
                prev,
                layout,
                c,
                ring[Math.floorMod(p - k - 1, n)],
                slices,
                s);
          }
        }
      }
    }
    return new Schedule(kind, ALGORITHM, n, count, root, toRankSchedules(programs));
  }

  /**
   * Adds slice {@code s} of channel {@code c}'s part of chunk {@code chunk}, unless it is empty.
   */
  private static void addSlice(
      List<Step> steps,
      StepKind kind,
      int peer,
      ChunkLayout layout,
      int c,
      int chunk,
      int slices,
      int s) {
    long len = layout.length(c, chunk);
    long from = ChunkLayout.partStart(len, slices, s);
    long sliceLen = ChunkLayout.partStart(len, slices, s + 1) - from;
    if (sliceLen > 0) {
      steps.add(new Step(kind, peer, layout.offset(c, chunk) + from, sliceLen));
    }
  }

  private static int sliceCount(long longestChunk, long maxStepElements) {
    return (int)
        Math.max(
            1, Math.min(Integer.MAX_VALUE, (longestChunk + maxStepElements - 1) / maxStepElements));
  }

  private static void checkMaxStep(long maxStepElements) {
    if (maxStepElements < 1) {
      throw new IllegalArgumentException(
          "maxStepElements : " + maxStepElements + " (expected: >= 1)");
    }
  }

  /** Checks that every ring is a permutation of the same ranks 0..n-1; returns n. */
  static int checkRings(int[][] rings) {
    if (rings == null || rings.length == 0) {
      throw new IllegalArgumentException("no rings given (expected: at least one channel)");
    }
    int n = rings[0].length;
    for (int c = 0; c < rings.length; c++) {
      int[] sorted = rings[c].clone();
      Arrays.sort(sorted);
      for (int i = 0; i < sorted.length; i++) {
        if (sorted.length != n || sorted[i] != i) {
          throw new IllegalArgumentException(
              "ring of channel "
                  + c
                  + " is "
                  + Arrays.toString(rings[c])
                  + " (expected: a permutation of the ranks 0.."
                  + (n - 1)
                  + ")");
        }
      }
    }
    if (n == 0) {
      throw new IllegalArgumentException("rings are empty (expected: at least one rank)");
    }
    return n;
  }

  static int positionOf(int[] ring, int rank) {
    for (int p = 0; p < ring.length; p++) {
      if (ring[p] == rank) {
        return p;
      }
    }
    throw new IllegalArgumentException("rank " + rank + " is not on ring " + Arrays.toString(ring));
  }

  private static List<List<List<Step>>> emptyPrograms(int n, int channels) {
    List<List<List<Step>>> programs = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      List<List<Step>> perChannel = new ArrayList<>();
      for (int c = 0; c < channels; c++) {
        perChannel.add(new ArrayList<>());
      }
      programs.add(perChannel);
    }
    return programs;
  }

  private static List<RankSchedule> toRankSchedules(List<List<List<Step>>> programs) {
    List<RankSchedule> out = new ArrayList<>();
    for (int r = 0; r < programs.size(); r++) {
      out.add(new RankSchedule(r, programs.get(r)));
    }
    return out;
  }
}
