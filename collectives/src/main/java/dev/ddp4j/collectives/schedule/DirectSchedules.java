package dev.ddp4j.collectives.schedule;

import java.util.List;

/**
 * One-shot and two-shot all-reduce for groups where every pair of ranks has a direct path; each
 * channel runs on its own segment of the buffer. Every rank posts its sends before it receives, so
 * no send waits on a receive and one message slot per pair suffices. A rank reduces in rank order
 * of the senders, skipping itself.
 */
public final class DirectSchedules {

  private DirectSchedules() {}

  /** Every rank sends its segment to every other rank and reduces what it receives. */
  public static Schedule oneShot(int n, long count, int channels) {
    checkChannels(channels);
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, channels);
    for (int c = 0; c < channels; c++) {
      long off = ChunkLayout.partStart(count, channels, c);
      long len = ChunkLayout.partStart(count, channels, c + 1) - off;
      for (int r = 0; r < n && len > 0; r++) {
        List<Step> steps = programs.get(r).get(c);
        for (int d = 1; d < n; d++) {
          steps.add(Step.send((r + d) % n, off, len));
        }
        for (int p = 0; p < n; p++) {
          if (p != r) {
            steps.add(Step.recvReduce(p, off, len));
          }
        }
      }
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, "oneshot", n, count, -1, RingPhase.toRankSchedules(programs));
  }

  /** Direct reduce-scatter (rank r reduces block r of each segment), then direct all-gather. */
  public static Schedule twoShot(int n, long count, int channels) {
    checkChannels(channels);
    List<List<List<Step>>> programs = RingPhase.emptyPrograms(n, channels);
    for (int c = 0; c < channels; c++) {
      long segStart = ChunkLayout.partStart(count, channels, c);
      long segLen = ChunkLayout.partStart(count, channels, c + 1) - segStart;
      long[] off = RingPhase.offsets(segStart, segLen, n);
      long[] len = RingPhase.lengths(segLen, n);
      for (int r = 0; r < n; r++) {
        List<Step> steps = programs.get(r).get(c);
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
    }
    return new Schedule(
        CollectiveKind.ALL_REDUCE, "twoshot", n, count, -1, RingPhase.toRankSchedules(programs));
  }

  private static void checkChannels(int channels) {
    if (channels < 1) {
      throw new IllegalArgumentException("channels : " + channels + " (expected: >= 1)");
    }
  }
}
