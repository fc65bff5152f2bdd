package dev.ddp4j.collectives.cuda;

import dev.ddp4j.spi.Settings;

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
  static boolean shareGpus(Settings env) {
    return env.flag("DDP4J_CUDA_SHARE_GPUS", false);
  }

  /** {@code DDP4J_CUDA_SCRATCH_MIB}: device memory for the IPC scratch per GPU, default 240. */
  static long scratchBudgetBytes(Settings env) {
    return env.wholeLong("DDP4J_CUDA_SCRATCH_MIB", DEFAULT_SCRATCH_MIB, 1, 1L << 30) << 20;
  }

  /** Default size of one host-staged chunk (one pinned slot). */
  static final long DEFAULT_STAGED_CHUNK_KIB = 4096;

  /**
   * {@code DDP4J_CUDA_STAGED_CHUNK_KIB}: bytes per chunk of the host-staged path (the same on every
   * rank), 64 KiB to 1 GiB, default 4 MiB.
   */
  static long stagedChunkBytes(Settings env) {
    return env.wholeLong("DDP4J_CUDA_STAGED_CHUNK_KIB", DEFAULT_STAGED_CHUNK_KIB, 64, 1 << 20)
        << 10;
  }

  /**
   * {@code DDP4J_CUDA_STAGED_LANES}: host collectives the host-staged path runs side by side (each
   * a thread and a cpu group; chunks are dealt round robin), 1 to 8, default 2; the same on every
   * rank.
   */
  static int stagedLanes(Settings env) {
    return env.whole("DDP4J_CUDA_STAGED_LANES", 2, 1, 8);
  }

  /** The staging settings as every rank must agree on them. */
  static String describeStaging(Settings env) {
    return "DDP4J_CUDA_STAGED_CHUNK_KIB="
        + (stagedChunkBytes(env) >> 10)
        + " DDP4J_CUDA_STAGED_LANES="
        + stagedLanes(env);
  }
}
