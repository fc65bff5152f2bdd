package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ConfigException;
import java.util.Map;

/**
 * The environment variables the cuda backend reads (README, Configuration), each with NCCL's name
 * as a fallback where NCCL has one.
 */
final class CudaSettings {

  /** Scratch budget per GPU when {@code DDP4J_CUDA_SCRATCH_MIB} is unset. */
  static final long DEFAULT_SCRATCH_MIB = 240;

  private CudaSettings() {}

  /**
   * {@code DDP4J_CUDA_SHARE_GPUS=1}: ranks beyond the GPU count share GPUs round robin (device =
   * LOCAL_RANK mod GPUs), through CUDA IPC within one GPU, so that multi-rank routes and kernels
   * can be tested on a machine with fewer GPUs than ranks; timings then mean nothing. Default 0.
   */
  static boolean shareGpus() {
    String v = System.getenv("DDP4J_CUDA_SHARE_GPUS");
    if (v == null || v.isBlank() || v.trim().equals("0")) {
      return false;
    }
    if (v.trim().equals("1")) {
      return true;
    }
    throw new ConfigException(
        "DDP4J_CUDA_SHARE_GPUS=" + v + " (expected: 1 to let ranks share GPUs, or 0)");
  }

  /** {@code DDP4J_CUDA_SCRATCH_MIB}: device memory for the IPC scratch per GPU, default 240. */
  static long scratchBudgetBytes() {
    return scratchBudgetBytes(System.getenv());
  }

  /** As {@link #scratchBudgetBytes()}, from {@code env} ({@code launcher.jar doctor}'s view). */
  static long scratchBudgetBytes(Map<String, String> env) {
    return positive(env, "DDP4J_CUDA_SCRATCH_MIB", null, DEFAULT_SCRATCH_MIB) << 20;
  }

  /** Default size of one host-staged chunk (one pinned slot). */
  static final long DEFAULT_STAGED_CHUNK_KIB = 4096;

  /**
   * {@code DDP4J_CUDA_STAGED_CHUNK_KIB}: bytes per chunk of the host-staged path (the same on every
   * rank), 64 KiB to 1 GiB, default 4 MiB.
   */
  static long stagedChunkBytes() {
    return stagedChunkBytes(System.getenv());
  }

  static long stagedChunkBytes(Map<String, String> env) {
    long kib = positive(env, "DDP4J_CUDA_STAGED_CHUNK_KIB", null, DEFAULT_STAGED_CHUNK_KIB);
    if (kib < 64 || kib > (1 << 20)) {
      throw new ConfigException(
          "DDP4J_CUDA_STAGED_CHUNK_KIB=" + kib + " (expected: 64 to 1048576 KiB)");
    }
    return kib << 10;
  }

  /**
   * {@code DDP4J_CUDA_STAGED_LANES}: host collectives the host-staged path runs side by side (each
   * a thread and a cpu group; chunks are dealt round robin), 1 to 8, default 2; the same on every
   * rank.
   */
  static int stagedLanes() {
    return stagedLanes(System.getenv());
  }

  static int stagedLanes(Map<String, String> env) {
    long n = positive(env, "DDP4J_CUDA_STAGED_LANES", null, 2);
    if (n > 8) {
      throw new ConfigException("DDP4J_CUDA_STAGED_LANES=" + n + " (expected: 1 to 8)");
    }
    return (int) n;
  }

  /** The staging settings as every rank must agree on them. */
  static String describeStaging() {
    return "DDP4J_CUDA_STAGED_CHUNK_KIB="
        + (stagedChunkBytes() >> 10)
        + " DDP4J_CUDA_STAGED_LANES="
        + stagedLanes();
  }

  private static long positive(Map<String, String> env, String name, String ncclName, long dflt) {
    String v = env.get(name);
    String from = name;
    if ((v == null || v.isBlank()) && ncclName != null) {
      v = env.get(ncclName);
      from = ncclName;
    }
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigException(from + "=" + v + " (expected: a positive integer)");
  }
}
