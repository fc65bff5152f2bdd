package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.collectives.plan.Algorithm;

/**
 * Picks the kernel and launch shape for one all-reduce launch. {@link PlanChooser} is what a group
 * runs: the planner's choice; the GPU tests pass their own (SwitchableChooser, test sources).
 */
@FunctionalInterface
interface AllReduceChooser {

  /**
   * @param bytes the bytes of this launch (at most the scratch slot size)
   * @param ranks the ranks in the group, >= 2
   * @param dataType the element type
   */
  AllReduceTuning choose(long bytes, int ranks, DataType dataType);

  /**
   * The shape of a launch that must run the ring kernel, in a group whose pairs off its ring lack
   * peer access: {@link #choose}'s answer where it is the ring, else the ring's shape over the
   * channels {@link #choose} gave.
   */
  default AllReduceTuning chooseRing(long bytes, int ranks, DataType dataType) {
    AllReduceTuning c = choose(bytes, ranks, dataType);
    return c.algorithm() == Algorithm.RING
        ? c
        : PlanChooser.shape(Algorithm.RING, bytes, ranks, c.blocks());
  }
}
