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
      case RING ->
          RingSchedules.allReduce(plan.rings().toArray(new int[0][]), count, maxStepElements);
      case TREE -> TreeSchedules.allReduce(plan.trees().parents(), count, maxStepElements);
      case ONESHOT -> DirectSchedules.oneShot(n, count);
      case TWOSHOT -> DirectSchedules.twoShot(n, count);
      case HIERARCHICAL -> {
        if (plan.islands().isEmpty()) {
          throw new IllegalArgumentException(
              "hierarchical all-reduce needs islands of equal size; these "
                  + n
                  + " ranks have none (use ring or tree)");
        }
        yield HierarchicalSchedules.allReduce(plan.islands(), count, 2, maxStepElements);
      }
    };
  }
}
