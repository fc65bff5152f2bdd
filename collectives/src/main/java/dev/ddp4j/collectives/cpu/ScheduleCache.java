package dev.ddp4j.collectives.cpu;

import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanCompiler;
import dev.ddp4j.collectives.schedule.CollectiveKind;
import dev.ddp4j.collectives.schedule.RankSchedule;
import dev.ddp4j.collectives.schedule.RingSchedules;
import dev.ddp4j.collectives.schedule.RootedSchedules;
import dev.ddp4j.collectives.schedule.Schedule;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * This rank's compiled programs by (collective, count, root, element size), least recently used
 * evicted: training repeats the same bucket sizes, so schedules are compiled once. All-reduce runs
 * the algorithm the {@link Plan} chooses for its size; the other collectives run around the plan's
 * rings. Programs use at most the transport's channels.
 */
final class ScheduleCache {

  private static final int CAPACITY = 64;

  private record Key(Enum<?> kind, long count, int root, int elementBytes) {}

  private final int rank;
  private final Plan plan;
  private final int channels;
  private final int[][] rings;
  private final int pieceBytes;
  private final Map<Key, CompiledProgram> programs =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, CompiledProgram> eldest) {
          return size() > CAPACITY;
        }
      };

  /**
   * @param plan what every rank of the group agreed to run
   * @param channels the transport's channels
   * @param pieceBytes the transport's piece: the longest step before it is split
   */
  ScheduleCache(int rank, Plan plan, int channels, int pieceBytes) {
    this.rank = rank;
    this.plan = plan;
    this.channels = channels;
    this.rings = PlanCompiler.rings(plan, channels);
    this.pieceBytes = pieceBytes;
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

  /**
   * The program for a rooted collective or all-to-all ({@link RootedSchedules}); {@code count} is
   * the whole buffer for REDUCE, the per-rank block otherwise.
   */
  CompiledProgram program(RootedSchedules.Kind kind, long count, int root, int elementBytes) {
    return programs.computeIfAbsent(
        new Key(kind, count, root, elementBytes),
        k -> new CompiledProgram(compileRooted(k), elementBytes));
  }

  private RankSchedule compileRooted(Key k) {
    int n = rings[0].length;
    switch ((RootedSchedules.Kind) k.kind()) {
      case REDUCE:
        long maxStep = Math.max(1, pieceBytes / k.elementBytes());
        return RootedSchedules.reduce(rings, rank, k.root(), k.count(), maxStep);
      case GATHER:
        return RootedSchedules.gather(rings.length, n, rank, k.root(), k.count());
      case SCATTER:
        return RootedSchedules.scatter(rings.length, n, rank, k.root(), k.count());
      default:
        return RootedSchedules.allToAll(rings.length, n, rank, k.count());
    }
  }

  private Schedule compile(Key k) {
    long maxStep = Math.max(1, pieceBytes / k.elementBytes());
    switch ((CollectiveKind) k.kind()) {
      case ALL_REDUCE:
        Algorithm a = plan.algorithmFor(k.count() * k.elementBytes());
        return PlanCompiler.allReduce(plan, a, k.count(), k.elementBytes(), maxStep, channels);
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
