package dev.ddp4j.collectives.plan;

import java.util.Map;
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

  /** Reads the variables from {@code env} (pass {@code System.getenv()}). */
  public static PlannerOptions fromEnv(Map<String, String> env, boolean gpus) {
    PlannerOptions d = defaults(gpus);
    Optional<Algorithm> forced = get(env, "DDP4J_ALGO", "NCCL_ALGO").map(Algorithm::parse);
    int min =
        get(env, "DDP4J_MIN_NCHANNELS", "NCCL_MIN_NCHANNELS")
            .map(v -> positive(v, "DDP4J_MIN_NCHANNELS"))
            .orElse(d.minChannels);
    int max =
        get(env, "DDP4J_MAX_NCHANNELS", "NCCL_MAX_NCHANNELS")
            .map(v -> positive(v, "DDP4J_MAX_NCHANNELS"))
            .orElse(d.maxChannels);
    Optional<Integer> exact =
        get(env, "DDP4J_NCHANNELS", "NCCL_NCHANNELS").map(v -> positive(v, "DDP4J_NCHANNELS"));
    if (exact.isPresent()) {
      min = exact.get();
      max = exact.get();
    }
    if (min > max) {
      max = min;
    }
    return new PlannerOptions(forced, min, max, d.cost);
  }

  private static Optional<String> get(Map<String, String> env, String name, String ncclName) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      v = env.get(ncclName);
    }
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }

  private static int positive(String v, String name) {
    try {
      int n = Integer.parseInt(v);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + "=" + v + " (expected: a whole number >= 1)");
  }
}
