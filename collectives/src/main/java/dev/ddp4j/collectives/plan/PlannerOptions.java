package dev.ddp4j.collectives.plan;

import dev.ddp4j.spi.Settings;
import java.util.Optional;

/**
 * What users may force on the planner, read from the environment: {@code DDP4J_ALGO} ({@code
 * NCCL_ALGO}), {@code DDP4J_NCHANNELS}, {@code DDP4J_MIN_NCHANNELS} ({@code NCCL_MIN_NCHANNELS}),
 * {@code DDP4J_MAX_NCHANNELS} ({@code NCCL_MAX_NCHANNELS}).
 *
 * @param forced the algorithm for every size, or empty to choose per size
 * @param minChannels fewest ring channels
 * @param maxChannels most ring channels
 * @param cost executor assumptions
 * @param interHost how a GPU plan's hierarchical column crosses hosts (cuda groups on several
 *     hosts; {@link InterHost#SOCKET} elsewhere)
 */
public record PlannerOptions(
    Optional<Algorithm> forced,
    int minChannels,
    int maxChannels,
    CostParams cost,
    InterHost interHost) {

  /** Options whose columns cross hosts over the sockets (every plan but a multi-host cuda one). */
  public PlannerOptions(
      Optional<Algorithm> forced, int minChannels, int maxChannels, CostParams cost) {
    this(forced, minChannels, maxChannels, cost, InterHost.SOCKET);
  }

  /** These options with the column crossing hosts over {@code via}. */
  public PlannerOptions withInterHost(InterHost via) {
    return new PlannerOptions(forced, minChannels, maxChannels, cost, via);
  }

  /**
   * Channel bound when nothing is set: enough blocks to fill NVLink on H100 / H200 (64 one-shot
   * pushers beat 16, 32, 96 and 132 at 128-512 MiB on 2 x H200; bench/cuda-allreduce-h200.md).
   */
  public static final int DEFAULT_MAX_CHANNELS_GPU = 64;

  public static final int DEFAULT_MAX_CHANNELS_CPU = 4;

  public PlannerOptions {
    java.util.Objects.requireNonNull(interHost, "interHost");
    if (minChannels < 1 || maxChannels < minChannels || maxChannels > 64) {
      throw new IllegalArgumentException(
          "channels min "
              + minChannels
              + " max "
              + maxChannels
              + " (expected: 1 <= DDP4J_MIN_NCHANNELS <= DDP4J_MAX_NCHANNELS <= 64)");
    }
  }

  /** Defaults: choose per size, 1..64 channels on GPUs (1..4 on CPU ranks). */
  public static PlannerOptions defaults(boolean gpus) {
    return new PlannerOptions(
        Optional.empty(),
        1,
        gpus ? DEFAULT_MAX_CHANNELS_GPU : DEFAULT_MAX_CHANNELS_CPU,
        gpus ? CostParams.GPU : CostParams.CPU);
  }

  /** What {@code DDP4J_ALGO} accepts, for its error line. */
  public static final String ALGORITHM_NAMES =
      "ring, tree, oneshot, twoshot, hierarchical, ll or copyengine";

  /**
   * Reads the variables from {@code env}: the one reader of {@code DDP4J_ALGO} (each backend then
   * says what it does with an algorithm it cannot run).
   */
  public static PlannerOptions fromEnvironment(Settings env, boolean gpus) {
    PlannerOptions d = defaults(gpus);
    Optional<Algorithm> forced = env.parsed("DDP4J_ALGO", Algorithm::parse, ALGORITHM_NAMES);
    int min = env.whole("DDP4J_MIN_NCHANNELS", d.minChannels, 1, 64);
    int max = env.whole("DDP4J_MAX_NCHANNELS", d.maxChannels, 1, 64);
    if (env.isSet("DDP4J_NCHANNELS")) {
      min = env.whole("DDP4J_NCHANNELS", 1, 1, 64);
      max = min;
    }
    return new PlannerOptions(forced, min, Math.max(min, max), d.cost);
  }
}
