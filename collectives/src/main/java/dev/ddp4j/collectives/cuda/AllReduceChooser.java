package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;

/**
 * Picks the kernel and launch shape for one all-reduce launch. The seam where the planner's cost
 * model plugs in; {@link CostTableChooser} is the default.
 */
@FunctionalInterface
public interface AllReduceChooser {

  /**
   * @param bytes the bytes of this launch (at most the scratch slot size)
   * @param ranks the ranks in the group, >= 2
   * @param dataType the element type
   */
  AllReduceTuning choose(long bytes, int ranks, DataType dataType);
}
