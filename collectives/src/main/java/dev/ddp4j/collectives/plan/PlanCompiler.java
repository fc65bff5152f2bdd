package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.schedule.DirectSchedules;
import dev.ddp4j.collectives.schedule.HierarchicalSchedules;
import dev.ddp4j.collectives.schedule.RingSchedules;
import dev.ddp4j.collectives.schedule.Schedule;
import dev.ddp4j.collectives.schedule.TreeSchedules;

/** Compiles a {@link Plan} into the {@link Schedule} every rank runs for one all-reduce. */
public final class PlanCompiler {

  private PlanCompiler() {}

  /** The schedule of the algorithm the plan chooses for {@code count * elementBytes} bytes. */
  public static Schedule allReduce(Plan plan, long count, int elementBytes, long maxStepElements) {
    return allReduce(plan, plan.algorithmFor(count * elementBytes), count, maxStepElements);
  }

  /**
   * The schedule of algorithm {@code a}.
   *
   * @throws IllegalArgumentException when {@code a} does not apply to the plan's ranks
   */
  public static Schedule allReduce(Plan plan, Algorithm a, long count, long maxStepElements) {
    int n = plan.ranks();
    return switch (a) {
      case RING -> RingSchedules.allReduce(rings(plan), count, maxStepElements);
      case TREE -> TreeSchedules.allReduce(plan.trees().parents(), count, maxStepElements);
      case ONESHOT -> DirectSchedules.oneShot(n, count, plan.wideChannels());
      case TWOSHOT -> DirectSchedules.twoShot(n, count, plan.wideChannels());
      case HIERARCHICAL -> {
        if (plan.islands().isEmpty()) {
          throw new IllegalArgumentException(
              "hierarchical all-reduce needs islands of equal size; these "
                  + n
                  + " ranks have none (use ring or tree)");
        }
        yield HierarchicalSchedules.allReduce(
            plan.islands(), count, plan.wideChannels(), maxStepElements);
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
    return plan.rings().toArray(new int[0][]);
  }
}
