package dev.ddp4j.collectives.cpu;

import dev.ddp4j.collectives.schedule.CollectiveKind;
import dev.ddp4j.collectives.schedule.DirectSchedules;
import dev.ddp4j.collectives.schedule.RingSchedules;
import dev.ddp4j.collectives.schedule.Schedule;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * This rank's compiled programs by (collective, count, root, element size), least recently used
 * evicted: training repeats the same bucket sizes, so schedules are compiled once. Every channel
 * runs around the same ring ({@link RingOrder}: ranks of one host adjacent).
 */
final class ScheduleCache {

  private static final int CAPACITY = 64;

  private record Key(CollectiveKind kind, long count, int root, int elementBytes) {}

  private final int rank;
  private final int[][] rings;
  private final int pieceBytes;
  private final String allReduceAlgorithm;
  private final Map<Key, CompiledProgram> programs =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, CompiledProgram> eldest) {
          return size() > CAPACITY;
        }
      };

  /**
   * @param allReduceAlgorithm {@code ring}, or {@code oneshot} / {@code twoshot} (every rank sends
   *     straight to every other; their float sums may differ between ranks in the last bit for 3 or
   *     more ranks, since each rank adds in its own order)
   */
  ScheduleCache(int rank, int[] ring, int channels, int pieceBytes, String allReduceAlgorithm) {
    this.rank = rank;
    this.allReduceAlgorithm = allReduceAlgorithm;
    this.pieceBytes = pieceBytes;
    this.rings = new int[channels][];
    for (int c = 0; c < channels; c++) {
      rings[c] = ring.clone();
    }
  }

  /**
   * The program for {@code kind}; {@code count} is the whole working buffer for ALL_REDUCE and
   * BROADCAST, the per-rank block for ALL_GATHER and REDUCE_SCATTER.
   */
  CompiledProgram program(CollectiveKind kind, long count, int root, int elementBytes) {
    return programs.computeIfAbsent(
        new Key(kind, count, root, elementBytes),
        k -> new CompiledProgram(compile(k).rank(rank), elementBytes));
  }

  private Schedule compile(Key k) {
    long maxStep = Math.max(1, pieceBytes / k.elementBytes());
    switch (k.kind()) {
      case ALL_REDUCE:
        switch (allReduceAlgorithm) {
          case "oneshot":
            return DirectSchedules.oneShot(rings[0].length, k.count(), rings.length);
          case "twoshot":
            return DirectSchedules.twoShot(rings[0].length, k.count(), rings.length);
          default:
            return RingSchedules.allReduce(rings, k.count(), maxStep);
        }
      case BROADCAST:
        // The confirmation makes ranks that pass different roots fail at this call (the root hears
        // back), not at the next one; it costs one 1-element hop.
        return RingSchedules.broadcast(rings, k.root(), k.count(), maxStep, true);
      case ALL_GATHER:
        return RingSchedules.allGather(rings, k.count(), maxStep);
      default:
        return RingSchedules.reduceScatter(rings, k.count(), maxStep);
    }
  }
}
