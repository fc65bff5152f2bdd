package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.schedule.DirectSchedules;
import dev.ddp4j.collectives.schedule.HierarchicalSchedules;
import dev.ddp4j.collectives.schedule.RingSchedules;
import dev.ddp4j.collectives.schedule.Schedule;
import dev.ddp4j.collectives.schedule.TreeSchedules;
import java.util.List;

/** Compiles a {@link Plan} into the {@link Schedule} every rank runs for one all-reduce. */
public final class PlanCompiler {

  private PlanCompiler() {}

  /** The schedule of the algorithm the plan chooses for {@code count * elementBytes} bytes. */
  public static Schedule allReduce(Plan plan, long count, int elementBytes, long maxStepElements) {
    return allReduce(
        plan, plan.algorithmFor(count * elementBytes), count, elementBytes, maxStepElements);
  }

  /**
   * The schedule of algorithm {@code a} for {@code count} elements of {@code elementBytes} (the
   * size picks the hierarchical pipeline's chunks).
   *
   * @throws IllegalArgumentException when {@code a} does not apply to the plan's ranks
   */
  public static Schedule allReduce(
      Plan plan, Algorithm a, long count, int elementBytes, long maxStepElements) {
    return allReduce(plan, a, count, elementBytes, maxStepElements, Integer.MAX_VALUE);
  }

  /**
   * As {@link #allReduce(Plan, Algorithm, long, int, long)}, on at most {@code maxChannels}
   * channels: the first rings, the first tree, fewer wide channels. For executors whose transport
   * has fewer channels than the plan assumes.
   */
  public static Schedule allReduce(
      Plan plan, Algorithm a, long count, int elementBytes, long maxStepElements, int maxChannels) {
    int n = plan.ranks();
    int wide = Math.min(plan.wideChannels(), maxChannels);
    return switch (a) {
      case RING -> RingSchedules.allReduce(rings(plan, maxChannels), count, maxStepElements);
      case TREE -> {
        List<int[]> parents = plan.trees().parents();
        yield TreeSchedules.allReduce(
            parents.subList(0, Math.min(parents.size(), maxChannels)), count, maxStepElements);
      }
      // LL and the copy engine move a one-shot's data in another way: the same steps.
      case ONESHOT, LL, COPYENGINE -> DirectSchedules.oneShot(n, count, wide);
      case TWOSHOT -> DirectSchedules.twoShot(n, count, wide);
      case HIERARCHICAL -> {
        if (plan.islands().isEmpty()) {
          throw new IllegalArgumentException(
              "hierarchical all-reduce needs islands of equal size; these "
                  + n
                  + " ranks have none (use ring or tree)");
        }
        int chunks = plan.predictionFor(count * elementBytes).hierarchicalChunks();
        yield HierarchicalSchedules.allReduce(plan.islands(), count, wide, maxStepElements, chunks);
      }
    };
  }

  /** Broadcast from {@code root}, pipelined along the plan's ring channels. */
  public static Schedule broadcast(Plan plan, int root, long count, long maxStepElements) {
    return RingSchedules.broadcast(rings(plan), root, count, maxStepElements);
  }

  /** All-gather of {@code blockCount} elements per rank around the plan's ring channels. */
  public static Schedule allGather(Plan plan, long blockCount, long maxStepElements) {
    return RingSchedules.allGather(rings(plan), blockCount, maxStepElements);
  }

  /** Reduce-scatter of {@code blockCount} elements per rank around the plan's ring channels. */
  public static Schedule reduceScatter(Plan plan, long blockCount, long maxStepElements) {
    return RingSchedules.reduceScatter(rings(plan), blockCount, maxStepElements);
  }

  private static int[][] rings(Plan plan) {
    return rings(plan, Integer.MAX_VALUE);
  }

  /** The plan's first {@code maxChannels} rings (best first). */
  public static int[][] rings(Plan plan, int maxChannels) {
    List<int[]> all = plan.rings();
    return all.subList(0, Math.min(all.size(), maxChannels)).toArray(new int[0][]);
  }
}
