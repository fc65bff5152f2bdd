package dev.ddp4j.collectives.schedule;

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
      int slices = (int) Math.max(1, (segLen + maxStepElements - 1) / maxStepElements);
      for (int r = 0; r < n; r++) {
        List<Step> steps = programs.get(r).get(t);
        for (int s = 0; s < slices; s++) {
          long off = segStart + ChunkLayout.partStart(segLen, slices, s);
          long len =
              ChunkLayout.partStart(segLen, slices, s + 1)
                  - ChunkLayout.partStart(segLen, slices, s);
          if (len == 0) {
            continue;
          }
          for (int c = 0; c < n; c++) {
            if (parent[c] == r) {
              steps.add(Step.recvReduce(c, off, len));
            }
          }
          if (parent[r] >= 0) {
            steps.add(Step.send(parent[r], off, len));
          }
        }
        for (int s = 0; s < slices; s++) {
          long off = segStart + ChunkLayout.partStart(segLen, slices, s);
          long len =
              ChunkLayout.partStart(segLen, slices, s + 1)
                  - ChunkLayout.partStart(segLen, slices, s);
          if (len == 0) {
            continue;
          }
          if (parent[r] >= 0) {
            steps.add(Step.recvCopy(parent[r], off, len));
          }
          for (int c = 0; c < n; c++) {
            if (parent[c] == r) {
              steps.add(Step.send(c, off, len));
            }
          }
        }
      }
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, "tree", n, count, -1, RingPhase.toRankSchedules(programs));
  }
}
