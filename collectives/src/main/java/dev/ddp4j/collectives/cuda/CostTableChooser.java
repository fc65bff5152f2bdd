package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;

/**
 * The default {@link AllReduceChooser}: a two-term cost model per algorithm, {@code time = hops *
 * latency + linkBytes / bandwidth}, with one-shot moving {@code (n-1) * S} bytes over each GPU's
 * links in one hop and two-shot {@code 2 (n-1)/n * S} in two. The constants are calibrated from the
 * 2 x H200 measurements in {@code bench/cuda-allreduce-h200.md}. On 2 ranks both move {@code S}
 * bytes, so one-shot always wins there.
 */
public final class CostTableChooser implements AllReduceChooser {

  /** One NVLink hop plus flag handshake, measured as the small-message time minus launch cost. */
  static final double HOP_LATENCY_NS = 3_000;

  /** Peer bandwidth per GPU for pushes (bytes per ns = GB/s). */
  static final double LINK_BYTES_PER_NS = 360;

  /** Bytes one block moves before another block is worth launching. */
  static final long BYTES_PER_BLOCK = 32 << 10;

  /** One-shot pipeline step per pusher block. */
  static final long STEP_BYTES = 64 << 10;

  private final AllReduceAlgorithm forced;
  private final int maxBlocks;

  /**
   * @param forced the algorithm to use at every size, or null to choose by cost
   * @param maxBlocks the most blocks (channels) one launch uses
   */
  public CostTableChooser(AllReduceAlgorithm forced, int maxBlocks) {
    if (maxBlocks < 1) {
      throw new IllegalArgumentException("maxBlocks : " + maxBlocks + " (expected: >= 1)");
    }
    this.forced = forced;
    this.maxBlocks = Math.min(maxBlocks, ScratchLayout.MAX_BLOCKS / 2);
  }

  @Override
  public AllReduceTuning choose(long bytes, int ranks, DataType dataType) {
    AllReduceAlgorithm algo = forced != null ? forced : cheaper(bytes, ranks);
    long perRank = algo == AllReduceAlgorithm.TWOSHOT ? (bytes + ranks - 1) / ranks : bytes;
    int blocks =
        (int) Math.max(1, Math.min(maxBlocks, (perRank + BYTES_PER_BLOCK - 1) / BYTES_PER_BLOCK));
    return new AllReduceTuning(algo, blocks, STEP_BYTES);
  }

  /** The predicted time of {@code algo} for {@code bytes} on {@code ranks} ranks, in ns. */
  static double predictNs(AllReduceAlgorithm algo, long bytes, int ranks) {
    double n = ranks;
    return algo == AllReduceAlgorithm.ONESHOT
        ? HOP_LATENCY_NS + (n - 1) * bytes / LINK_BYTES_PER_NS
        : 2 * HOP_LATENCY_NS + 2 * (n - 1) / n * bytes / LINK_BYTES_PER_NS;
  }

  static AllReduceAlgorithm cheaper(long bytes, int ranks) {
    return predictNs(AllReduceAlgorithm.TWOSHOT, bytes, ranks)
            < predictNs(AllReduceAlgorithm.ONESHOT, bytes, ranks)
        ? AllReduceAlgorithm.TWOSHOT
        : AllReduceAlgorithm.ONESHOT;
  }
}
