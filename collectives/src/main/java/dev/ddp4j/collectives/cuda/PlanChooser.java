package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;

/**
 * The cuda group's {@link AllReduceChooser}: the planner's choice at each launch's size, turned
 * into a kernel and its launch shape. It chooses nothing of its own: the algorithm is {@link
 * Plan#algorithmFor}, the channels are the plan's (its wide channels for the one-shot family and
 * two-shot, its ring channels for the ring), and only the split of a launch's bytes over those
 * channels (a block per {@link #BYTES_PER_BLOCK}) and the pipeline step are fixed here.
 */
final class PlanChooser implements AllReduceChooser {

  /** Bytes one block moves before another block is worth launching. */
  static final long BYTES_PER_BLOCK = 32 << 10;

  /**
   * One-shot pipeline step per pusher block: 128 KiB was the fastest of 64 KiB to 1 MiB at 32-512
   * MiB on 2 x H200 (bench/cuda-allreduce-h200.md).
   */
  static final long STEP_BYTES = 128 << 10;

  /**
   * Copy-engine chunk: the unit of flags and of the reduce kernel's pipeline (best of 4-16 MiB).
   */
  static final long COPY_ENGINE_CHUNK_BYTES = 16 << 20;

  private final Plan plan;

  public PlanChooser(Plan plan) {
    this.plan = plan;
  }

  @Override
  public AllReduceTuning choose(long bytes, int ranks, DataType dataType) {
    return shape(kernelOf(plan.algorithmFor(bytes), bytes), bytes, ranks, channelsOf(plan, bytes));
  }

  @Override
  public AllReduceTuning chooseRing(long bytes, int ranks, DataType dataType) {
    return shape(Algorithm.RING, bytes, ranks, plan.rings().size());
  }

  /** The most blocks a launch of {@code bytes} may use under the plan. */
  private static int channelsOf(Plan plan, long bytes) {
    Algorithm a = plan.algorithmFor(bytes);
    return a == Algorithm.RING || a == Algorithm.HIERARCHICAL
        ? plan.rings().size()
        : plan.wideChannels();
  }

  /**
   * The cuda kernel family of a planner algorithm. LL holds at most {@link
   * ScratchLayout#LL_MAX_BYTES} a launch; a larger launch of an LL size runs one-shot, the same
   * data movement.
   */
  static Algorithm kernelOf(Algorithm a, long launchBytes) {
    return switch (a) {
      case RING, ONESHOT, TWOSHOT, COPYENGINE -> a;
      case LL -> launchBytes <= ScratchLayout.LL_MAX_BYTES ? Algorithm.LL : Algorithm.ONESHOT;
      // The hierarchical route runs whole messages of its sizes; a launch of such a size inside
      // another message (a piece of a larger one, a barrier) takes the ring, its flat road.
      case HIERARCHICAL -> Algorithm.RING;
      case TREE ->
          throw new IllegalArgumentException(
              a.id() + " has no cuda kernel (the cuda executor runs " + Algorithm.onCuda() + ")");
    };
  }

  /** The launch shape of {@code algo} for {@code bytes}: blocks by bytes per rank. */
  public static AllReduceTuning shape(Algorithm algo, long bytes, int ranks, int maxBlocks) {
    int cap = Math.max(1, Math.min(maxBlocks, ScratchLayout.MAX_BLOCKS / 2));
    if (algo == Algorithm.COPYENGINE) {
      return new AllReduceTuning(algo, cap, COPY_ENGINE_CHUNK_BYTES);
    }
    if (algo == Algorithm.LL) {
      long units = (bytes + 7) / 8;
      int blocks =
          (int)
              Math.max(
                  1,
                  Math.min(cap, (units + AllReduceKernels.THREADS - 1) / AllReduceKernels.THREADS));
      return new AllReduceTuning(algo, blocks, 16);
    }
    long perRank =
        algo == Algorithm.TWOSHOT || algo == Algorithm.RING ? (bytes + ranks - 1) / ranks : bytes;
    int blocks =
        (int) Math.max(1, Math.min(cap, (perRank + BYTES_PER_BLOCK - 1) / BYTES_PER_BLOCK));
    return new AllReduceTuning(algo, blocks, STEP_BYTES);
  }
}
