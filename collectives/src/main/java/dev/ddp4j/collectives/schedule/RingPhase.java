package dev.ddp4j.collectives.schedule;

import java.util.List;

/**
 * Emits one ring phase (reduce-scatter, all-gather, or both) over a sub-ring of the ranks onto
 * their programs, for generators that compose rings (hierarchical). Chunk {@code q} is the range
 * {@code [offsets[q], offsets[q] + lengths[q])}; the rank at ring position {@code p} ends the
 * reduce-scatter owning chunk {@code p}, as in {@link RingSchedules}. Chunks are cut into slices of
 * at most {@code maxStepElements} so neighbours pipeline.
 */
final class RingPhase {

  private RingPhase() {}

  static void emit(
      List<List<List<Step>>> programs,
      int channel,
      int[] ring,
      long[] offsets,
      long[] lengths,
      boolean reduce,
      boolean gather,
      long maxStepElements,
      int lane) {
    int n = ring.length;
    if (n < 2) {
      return;
    }
    long longest = 0;
    for (long l : lengths) {
      longest = Math.max(longest, l);
    }
    int slices = (int) Math.max(1, (longest + maxStepElements - 1) / maxStepElements);
    for (int p = 0; p < n; p++) {
      List<Step> steps = programs.get(ring[p]).get(channel);
      int next = ring[(p + 1) % n];
      int prev = ring[Math.floorMod(p - 1, n)];
      for (int s = 0; s < slices; s++) {
        for (int k = 0; reduce && k < n - 1; k++) {
          add(steps, StepKind.SEND, next, offsets, lengths, p - k - 1, slices, s, lane);
          add(steps, StepKind.RECV_REDUCE, prev, offsets, lengths, p - k - 2, slices, s, lane);
        }
        for (int k = 0; gather && k < n - 1; k++) {
          add(steps, StepKind.SEND, next, offsets, lengths, p - k, slices, s, lane);
          add(steps, StepKind.RECV_COPY, prev, offsets, lengths, p - k - 1, slices, s, lane);
        }
      }
    }
  }

  private static void add(
      List<Step> steps,
      StepKind kind,
      int peer,
      long[] offsets,
      long[] lengths,
      int position,
      int slices,
      int s,
      int lane) {
    int chunk = Math.floorMod(position, lengths.length);
    long len = lengths[chunk];
    long from = ChunkLayout.partStart(len, slices, s);
    long sliceLen = ChunkLayout.partStart(len, slices, s + 1) - from;
    if (sliceLen > 0) {
      steps.add(new Step(kind, peer, offsets[chunk] + from, sliceLen, lane));
    }
  }

  /** Offsets of {@code parts} nearly equal parts of {@code [start, start + len)}. */
  static long[] offsets(long start, long len, int parts) {
    long[] out = new long[parts];
    for (int i = 0; i < parts; i++) {
      out[i] = start + ChunkLayout.partStart(len, parts, i);
    }
    return out;
  }

  /** Lengths of {@code parts} nearly equal parts of {@code len}. */
  static long[] lengths(long len, int parts) {
    long[] out = new long[parts];
    for (int i = 0; i < parts; i++) {
      out[i] = ChunkLayout.partStart(len, parts, i + 1) - ChunkLayout.partStart(len, parts, i);
    }
    return out;
  }

  static List<List<List<Step>>> emptyPrograms(int n, int channels) {
    List<List<List<Step>>> programs = new java.util.ArrayList<>();
    for (int r = 0; r < n; r++) {
      List<List<Step>> perChannel = new java.util.ArrayList<>();
      for (int c = 0; c < channels; c++) {
        perChannel.add(new java.util.ArrayList<>());
      }
      programs.add(perChannel);
    }
    return programs;
  }

  static List<RankSchedule> toRankSchedules(List<List<List<Step>>> programs) {
    List<RankSchedule> out = new java.util.ArrayList<>();
    for (int r = 0; r < programs.size(); r++) {
      out.add(new RankSchedule(r, programs.get(r)));
    }
    return out;
  }
}
