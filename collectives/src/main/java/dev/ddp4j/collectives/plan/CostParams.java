package dev.ddp4j.collectives.plan;

/**
 * What the cost model assumes about the executor, besides the links.
 *
 * @param stepOverheadUs fixed cost of one step (kernel or loop iteration, flag handshake), µs
 * @param channelGbps what one channel moves at most per direction (one thread block, one CPU
 *     thread), GB/s: why fat links need several channels
 * @param reduceGbps rate at which a rank reduces received bytes into its buffer, GB/s
 * @param sliceBytes pipelining unit of trees
 */
public record CostParams(
    double stepOverheadUs, double channelGbps, double reduceGbps, long sliceBytes) {

  /** The CUDA executor on a recent GPU. */
  public static final CostParams GPU = new CostParams(1.5, 30.0, 1000.0, 512 * 1024);

  /**
   * The CPU executor over shared memory and sockets. One step (flag handshake, one piece through a
   * slot) costs about 1 µs: 2 ranks ran an 8 B one-shot in 0.9-1.8 µs and a two-step ring in
   * 1.2-2.7 µs on the 2-core CI machine. A rank moves about 8 GB/s through its slots, and the
   * reduction mostly hides behind the copies (it reads a piece while the next one is written), so
   * it is charged at 20 GB/s: 2 ranks then take 2.5 ms for 16 MiB, as measured.
   */
  public static final CostParams CPU = new CostParams(1.0, 8.0, 20.0, 256 * 1024);
}
