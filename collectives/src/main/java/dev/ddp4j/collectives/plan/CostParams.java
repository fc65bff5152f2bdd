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
 * @param launchUs host cost of starting one collective (a kernel launch), µs, once per all-reduce
 * @param llStepOverheadUs the step overhead of LL, whose words carry their flags (no fence)
 * @param llMaxBytes the largest LL all-reduce (what an LL slot holds); 0 where there is no LL
 * @param copyEngineFixedUs the copy-engine one-shot's host calls and stream waits per launch, µs
 * @param copyEngineRate the share of a link the copy-engine one-shot reaches, 0 to 1
 * @param ringRate the share of a channel's bandwidth a ring's pushes reach, 0 to 1
 * @param twoShotRate the share two-shot reaches, 0 to 1
 */
public record CostParams(
    double stepOverheadUs,
    double channelGbps,
    double reduceGbps,
    long sliceBytes,
    double directRate,
    double launchUs,
    double llStepOverheadUs,
    long llMaxBytes,
    double copyEngineFixedUs,
    double copyEngineRate,
    double ringRate,
    double twoShotRate) {

  public CostParams {
    if (!(directRate > 0 && directRate <= 1)) {
      throw new IllegalArgumentException("directRate " + directRate + " (expected: 0 < rate <= 1)");
    }
    if (!(twoShotRate > 0 && twoShotRate <= 1)) {
      throw new IllegalArgumentException(
          "twoShotRate " + twoShotRate + " (expected: 0 < rate <= 1)");
    }
    if (!(ringRate > 0 && ringRate <= 1)) {
      throw new IllegalArgumentException("ringRate " + ringRate + " (expected: 0 < rate <= 1)");
    }
    if (!(copyEngineRate > 0 && copyEngineRate <= 1)) {
      throw new IllegalArgumentException(
          "copyEngineRate " + copyEngineRate + " (expected: 0 < rate <= 1)");
    }
  }

  /**
   * The cuda executor, fitted on 2 x H200 (NV18, 450 GB/s per direction in the topology) against
   * {@code bench/cuda-allreduce-h200.md}, call 9, 2026-11-30:
   *
   * <ul>
   *   <li>launchUs 5.0: {@code cuLaunchKernel} through JNA took 4.5-5.1 us on that host (the
   *       bench's {@code issue_us}); every small all-reduce is bound by it.
   *   <li>llStepOverheadUs 0.6: LL took 6.2-6.8 us from 8 B to 128 KiB = launch + 0.7 us NVLink
   *       latency + 0.6 us.
   *   <li>stepOverheadUs 2.3: one-shot took 9.9 us at 512 KiB and 14.4 us at 2 MiB, 8.0-8.4 us
   *       above its bytes over the link: launch + 0.7 us latency + 2.3 us (fence and flag
   *       handshake).
   *   <li>directRate 0.81 with reduceGbps 3000: one-shot reached 326-333 GB/s at 128-512 MiB; 1 /
   *       (1 / (450 x 0.81) + 1 / 3000) = 325 GB/s.
   *   <li>channelGbps 12.5: 16 one-shot pusher blocks reached 200.7 GB/s at 512 MiB, 32 blocks
   *       281.6 and 64 blocks 326.8 ({@code cuda-allreduce-h200-logs/sweep-run2-nofence.log}).
   *   <li>copy engine: 60 us of host calls per launch and 235 GB/s (0.52 of the link) with 16 MiB
   *       chunks.
   *   <li>ringRate 0.62: the ring kernel has not been timed on two GPUs; it pushes with two-shot's
   *       loop, which reached 280-289 GB/s at 32-512 MiB (sweep-run2-nofence.log), 0.62 of the
   *       link.
   * </ul>
   */
  public static final CostParams GPU =
      new CostParams(
          2.3, 12.5, 3000.0, 512 * 1024, 0.81, 5.0, 0.6, 256 * 1024, 60.0, 0.52, 0.62, 0.62);

  /**
   * The CPU executor over shared memory and sockets. One step (flag handshake, one piece through a
   * slot) costs about 1 µs: 2 ranks ran an 8 B one-shot in 0.9-1.8 µs and a two-step ring in
   * 1.2-2.7 µs on the 2-core CI machine. A rank moves about 8 GB/s through its slots, and the
   * reduction mostly hides behind the copies (it reads a piece while the next one is written), so
   * it is charged at 20 GB/s: 2 ranks then take 2.5 ms for 16 MiB, as measured. Two-shot took
   * 1.07-1.29x the ring's time from 1 MiB to 64 MiB on 4 and 8 ranks of a 16-core host, hence its
   * 0.85 rate (bench/cpu-algorithms.md).
   */
  public static final CostParams CPU =
      new CostParams(1.0, 8.0, 20.0, 256 * 1024, 0.85, 0, 0, 0, 0, 1, 1, 0.85);
}
