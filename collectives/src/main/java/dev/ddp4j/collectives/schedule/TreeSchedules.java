package dev.ddp4j.collectives.schedule;

import java.util.ArrayList;
import java.util.List;

/**
 * Compiles tree all-reduce: channel {@code t} runs tree {@code t} on its segment of the buffer.
 * Slice by slice, each rank reduces what its children send and passes the sum to its parent; then
 * the root's result flows back down, each rank copying from its parent and sending to its children.
 */
public final class TreeSchedules {

  private TreeSchedules() {}

  /**
   * @param parents per tree, the parent rank of every rank ({@code -1} for the root)
   */
  public static Schedule allReduce(List<int[]> parents, long count, long maxStepElements) {
    int trees = parents.size();
    int n = parents.get(0).length;
    if (maxStepElements < 1) {
      throw new IllegalArgumentException(
          "maxStepElements : " + maxStepElements + " (expected: >= 1)");
    }
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, trees);
    for (int t = 0; t < trees; t++) {
      int[] parent = parents.get(t);
      long segStart = ChunkLayout.partStart(count, trees, t);
      long segLen = ChunkLayout.partStart(count, trees, t + 1) - segStart;
      List<long[]> slices = slices(segStart, segLen, maxStepElements);
      for (int r = 0; r < n; r++) {
        List<Step> steps = programs.get(r).get(t);
        for (long[] slice : slices) {
          for (int c = 0; c < n; c++) {
            if (parent[c] == r) {
              steps.add(Step.recvReduce(c, slice[0], slice[1]));
            }
          }
          if (parent[r] >= 0) {
            steps.add(Step.send(parent[r], slice[0], slice[1]));
          }
        }
        for (long[] slice : slices) {
          if (parent[r] >= 0) {
            steps.add(Step.recvCopy(parent[r], slice[0], slice[1]));
          }
          for (int c = 0; c < n; c++) {
            if (parent[c] == r) {
              steps.add(Step.send(c, slice[0], slice[1]));
            }
          }
        }
      }
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, "tree", n, count, -1, RingPhase.toRankSchedules(programs));
  }

  /**
   * The non-empty slices {@code {offset, length}} of {@code segLen} elements from {@code segStart},
   * each at most {@code maxStepElements} long, split as evenly as {@link ChunkLayout} splits.
   */
  private static List<long[]> slices(long segStart, long segLen, long maxStepElements) {
    int count = (int) Math.max(1, (segLen + maxStepElements - 1) / maxStepElements);
    List<long[]> slices = new ArrayList<>(count);
    for (int s = 0; s < count; s++) {
      long from = ChunkLayout.partStart(segLen, count, s);
      long len = ChunkLayout.partStart(segLen, count, s + 1) - from;
      if (len > 0) {
        slices.add(new long[] {segStart + from, len});
      }
    }
    return slices;
  }
}
