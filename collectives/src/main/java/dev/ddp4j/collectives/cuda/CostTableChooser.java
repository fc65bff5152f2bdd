package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;

/**
 * The default {@link AllReduceChooser}: a two-term cost model per algorithm, {@code time = hops *
 * latency + linkBytes / bandwidth}, with one-shot moving {@code (n-1) * S} bytes over each GPU's
 * links in one hop, two-shot {@code 2 (n-1)/n * S} in two, the copy-engine one-shot {@code (n-1) *
 * S} at the copy engines' bandwidth after a larger fixed cost, and LL {@code 2 (n-1) * S} (data and
 * flags) in one hop without a fence, up to 256 KiB, and the ring {@code 2 (n-1)/n * S} in {@code 2
 * (n-1)} hops (so never below two-shot where every pair has peer access). The constants are
 * calibrated from the 2 x H200 measurements in {@code bench/cuda-allreduce-h200.md}. On 2 ranks
 * both move {@code S} bytes, so one-shot always wins there.
 */
public final class CostTableChooser implements AllReduceChooser {

  /** One NVLink hop plus flag handshake (a 2 MiB all-reduce takes 15 us, 6 us more than 8 B). */
  static final double HOP_LATENCY_NS = 3_000;

  /** Peer bandwidth per GPU for pushes (bytes per ns = GB/s): 329 measured at 512 MiB. */
  static final double LINK_BYTES_PER_NS = 330;

  /** Bytes one block moves before another block is worth launching. */
  static final long BYTES_PER_BLOCK = 32 << 10;

  /**
   * One-shot pipeline step per pusher block: 128 KiB was the fastest of 64 KiB to 1 MiB at 32-512
   * MiB on 2 x H200 (bench/cuda-allreduce-h200.md).
   */
  static final long STEP_BYTES = 128 << 10;

  /**
   * Blocks (channels) per launch unless DDP4J_MAX_NCHANNELS says otherwise: 64 pushers (+ 64
   * reducers) beat 16, 32, 96 and 132 at 128-512 MiB on 2 x H200; more contend for HBM and links.
   */
  public static final int DEFAULT_MAX_CHANNELS = 64;

  /**
   * LL: one NVLink trip with no fence. On 2 x H200 it took 5.9-6.8 us from 8 B to 128 KiB where
   * one-shot took 7.1-8.7 us in the same call (another call saw no difference: the host's launch
   * cost is close), so it is chosen up to what an LL slot holds.
   */
  static final double LL_LATENCY_NS = 1_500;

  /** Copy-engine algorithm: host API calls and stream-order waits per launch, in ns (measured). */
  static final double COPY_ENGINE_LATENCY_NS = 60_000;

  /**
   * Copy-engine all-reduce bandwidth seen on 2 x H200 with 16 MiB chunks (235 GB/s, against 329 for
   * the SM one-shot): each chunk's flag write waits for its copy, so the engines idle between
   * chunks. Kept so that it is never chosen where it is slower; DDP4J_ALGO=copyengine forces it.
   */
  static final double COPY_ENGINE_BYTES_PER_NS = 235;

  /**
   * Copy-engine chunk: the unit of flags and of the reduce kernel's pipeline (best of 4-16 MiB).
   */
  static final long COPY_ENGINE_CHUNK_BYTES = 16 << 20;

  /**
   * Ring: one step's hop (flag wait, fence, flag write) on top of its data; to be calibrated from
   * the 2 x H200 runs of DDP4J_ALGO=ring (bench/cuda-allreduce-h200.md).
   */
  static final double RING_STEP_LATENCY_NS = 3_000;

  /** Ring bandwidth per GPU link: each step pushes to one peer only. */
  static final double RING_BYTES_PER_NS = 330;

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
    AllReduceAlgorithm algo = forced != null ? forced : cheapest(bytes, ranks);
    if (algo == AllReduceAlgorithm.LL) {
      if (bytes <= ScratchLayout.LL_MAX_BYTES) {
        long units = (bytes + 7) / 8;
        int blocks =
            (int)
                Math.max(
                    1,
                    Math.min(
                        maxBlocks,
                        (units + AllReduceKernels.THREADS - 1) / AllReduceKernels.THREADS));
        return new AllReduceTuning(algo, blocks, 16);
      }
      algo = AllReduceAlgorithm.ONESHOT; // LL takes at most LL_MAX_BYTES a launch
    }
    return shape(algo, bytes, ranks, maxBlocks);
  }

  @Override
  public AllReduceTuning chooseRing(long bytes, int ranks, DataType dataType) {
    return shape(AllReduceAlgorithm.RING, bytes, ranks, maxBlocks);
  }

  /** The launch shape of {@code algo} (not LL) for {@code bytes}: blocks by bytes per rank. */
  static AllReduceTuning shape(AllReduceAlgorithm algo, long bytes, int ranks, int maxBlocks) {
    if (algo == AllReduceAlgorithm.COPY_ENGINE) {
      return new AllReduceTuning(algo, maxBlocks, COPY_ENGINE_CHUNK_BYTES);
    }
    long perRank =
        algo == AllReduceAlgorithm.TWOSHOT || algo == AllReduceAlgorithm.RING
            ? (bytes + ranks - 1) / ranks
            : bytes;
    int blocks =
        (int) Math.max(1, Math.min(maxBlocks, (perRank + BYTES_PER_BLOCK - 1) / BYTES_PER_BLOCK));
    return new AllReduceTuning(algo, blocks, STEP_BYTES);
  }

  /** The predicted time of {@code algo} for {@code bytes} on {@code ranks} ranks, in ns. */
  static double predictNs(AllReduceAlgorithm algo, long bytes, int ranks) {
    double n = ranks;
    return switch (algo) {
      case ONESHOT -> HOP_LATENCY_NS + (n - 1) * bytes / LINK_BYTES_PER_NS;
      case TWOSHOT -> 2 * HOP_LATENCY_NS + 2 * (n - 1) / n * bytes / LINK_BYTES_PER_NS;
      case COPY_ENGINE -> COPY_ENGINE_LATENCY_NS + (n - 1) * bytes / COPY_ENGINE_BYTES_PER_NS;
      case LL ->
          bytes > ScratchLayout.LL_MAX_BYTES
              ? Double.POSITIVE_INFINITY
              : LL_LATENCY_NS + 2 * (n - 1) * bytes / LINK_BYTES_PER_NS;
      case RING -> 2 * (n - 1) * RING_STEP_LATENCY_NS + 2 * (n - 1) / n * bytes / RING_BYTES_PER_NS;
    };
  }

  static AllReduceAlgorithm cheapest(long bytes, int ranks) {
    AllReduceAlgorithm best = AllReduceAlgorithm.ONESHOT;
    for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
      if (predictNs(a, bytes, ranks) < predictNs(best, bytes, ranks)) {
        best = a;
      }
    }
    return best;
  }
}
