package dev.ddp4j.collectives.plan;

/**
 * What the cost model assumes about the executor, besides the links.
 *
 * @param stepOverheadUs fixed cost of one step (kernel or loop iteration, flag handshake), µs
 * @param channelGbps what one channel moves at most per direction (one thread block, one CPU
 *     thread), GB/s: why fat links need several channels
 * @param reduceGbps rate at which a rank reduces received bytes into its buffer, GB/s
 * @param sliceBytes pipelining unit of trees
 * @param directRate the share of a channel's bandwidth that one-shot and two-shot reach, 0 to 1: a
 *     ring forwards each piece in the pass that receives it, direct schedules gather from every
 *     peer at once and write their sum before sending it on
 */
public record CostParams(
    double stepOverheadUs,
    double channelGbps,
    double reduceGbps,
    long sliceBytes,
    double directRate) {

  public CostParams {
    if (!(directRate > 0 && directRate <= 1)) {
      throw new IllegalArgumentException("directRate " + directRate + " (expected: 0 < rate <= 1)");
    }
  }

  /** The CUDA executor on a recent GPU. */
  public static final CostParams GPU = new CostParams(1.5, 30.0, 1000.0, 512 * 1024, 1.0);

  /**
   * The CPU executor over shared memory and sockets. One step (flag handshake, one piece through a
   * slot) costs about 1 µs: 2 ranks ran an 8 B one-shot in 0.9-1.8 µs and a two-step ring in
   * 1.2-2.7 µs on the 2-core CI machine. A rank moves about 8 GB/s through its slots, and the
   * reduction mostly hides behind the copies (it reads a piece while the next one is written), so
   * it is charged at 20 GB/s: 2 ranks then take 2.5 ms for 16 MiB, as measured. Two-shot took
   * 1.07-1.29x the ring's time from 1 MiB to 64 MiB on 4 and 8 ranks of a 16-core host, hence its
   * 0.85 rate (bench/cpu-algorithms.md).
   */
  public static final CostParams CPU = new CostParams(1.0, 8.0, 20.0, 256 * 1024, 0.85);
}
