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

  /**
   * The shape of a launch that must run the ring kernel, in a group where pairs off the ring lack
   * peer access ({@link PeerRouting.Mode#RING}): {@link #choose}'s answer where it is the ring,
   * else the cost table's ring shape.
   */
  default AllReduceTuning chooseRing(long bytes, int ranks, DataType dataType) {
    AllReduceTuning c = choose(bytes, ranks, dataType);
    return c.algorithm() == AllReduceAlgorithm.RING
        ? c
        : CostTableChooser.shape(
            AllReduceAlgorithm.RING, bytes, ranks, CostTableChooser.DEFAULT_MAX_CHANNELS);
  }
}
