package dev.ddp4j.collectives.schedule;

import java.util.List;

/**
 * One-shot and two-shot all-reduce for groups where every pair of ranks has a direct path. Every
 * rank posts its sends before it receives, so no send waits on a receive and one message slot per
 * pair suffices. Ranks reduce in rank order of the senders, skipping themselves.
 */
public final class DirectSchedules {

  private DirectSchedules() {}

  /** Every rank sends its whole buffer to every other rank and reduces what it receives. */
  public static Schedule oneShot(int n, long count) {
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, 1);
    for (int r = 0; r < n; r++) {
      List<Step> steps = programs.get(r).get(0);
      for (int d = 1; d < n && count > 0; d++) {
        steps.add(Step.send((r + d) % n, 0, count));
      }
      for (int p = 0; p < n && count > 0; p++) {
        if (p != r) {
          steps.add(Step.recvReduce(p, 0, count));
        }
      }
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, "oneshot", n, count, -1, RingPhase.toRankSchedules(programs));
  }

  /** Direct reduce-scatter (rank r reduces block r), then direct all-gather of the blocks. */
  public static Schedule twoShot(int n, long count) {
    long[] off = RingPhase.offsets(0, count, n);
    long[] len = RingPhase.lengths(count, n);
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, 1);
    for (int r = 0; r < n; r++) {
      List<Step> steps = programs.get(r).get(0);
      for (int d = 1; d < n; d++) {
        int p = (r + d) % n;
        if (len[p] > 0) {
          steps.add(Step.send(p, off[p], len[p]));
        }
      }
      for (int p = 0; p < n && len[r] > 0; p++) {
        if (p != r) {
          steps.add(Step.recvReduce(p, off[r], len[r]));
        }
      }
      for (int d = 1; d < n && len[r] > 0; d++) {
        steps.add(Step.send((r + d) % n, off[r], len[r]));
      }
      for (int p = 0; p < n; p++) {
        if (p != r && len[p] > 0) {
          steps.add(Step.recvCopy(p, off[p], len[p]));
        }
      }
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, "twoshot", n, count, -1, RingPhase.toRankSchedules(programs));
  }
}
