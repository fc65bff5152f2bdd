package dev.ddp4j.collectives.cuda;

import dev.ddp4j.spi.Settings;

/**
 * Host memory the cuda backend takes besides device memory, for {@code launcher.jar doctor}: the
 * shared-memory file of one host hop ({@link HostHop}, a ring hop between GPUs without peer access)
 * and the pinned slots of the host-staged path ({@link StagedPath}, between hosts).
 */
public final class HostMemoryNeeds {

  private HostMemoryNeeds() {}

  /**
   * Bytes of the shared-memory file the receiving rank of one host hop creates in a group of {@code
   * ranks} (its scratch layout within {@code DDP4J_CUDA_SCRATCH_MIB} of {@code env}).
   */
  public static long hostHopBytes(int ranks, Settings env) {
    return ScratchLayout.within(Math.max(2, ranks), CudaSettings.scratchBudgetBytes(env))
        .totalBytes();
  }

  /**
   * Bytes of pinned host memory one rank of the host-staged path allocates: {@code
   * DDP4J_CUDA_STAGED_LANES} x {@link StagedPath#SLOTS_PER_LANE} slots (at least 4) of {@code
   * DDP4J_CUDA_STAGED_CHUNK_KIB}.
   */
  public static long stagingBytes(Settings env) {
    return Math.max(4, StagedPath.SLOTS_PER_LANE * CudaSettings.stagedLanes(env))
        * CudaSettings.stagedChunkBytes(env);
  }

  /** {@code DDP4J_CUDA_STAGED_LANES} of {@code env}: host groups of the host-staged path. */
  public static int stagedLanes(Settings env) {
    return CudaSettings.stagedLanes(env);
  }
}
