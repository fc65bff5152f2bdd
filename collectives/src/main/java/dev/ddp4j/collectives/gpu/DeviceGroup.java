package dev.ddp4j.collectives.gpu;

import dev.ddp4j.ProcessGroup;
import jcuda.driver.CUcontext;

/**
 * A process group over device memory (the {@code cuda} and {@code nccl} backends): one process per
 * GPU, collectives on the buffers' streams. What code that allocates buffers for such a group
 * (benches, the GPU bucket engine's checks) needs to know about it.
 */
public interface DeviceGroup extends ProcessGroup {

  /** The CUDA device ordinal this rank runs on; buffers must live there. */
  int deviceIndex();

  /** The primary context of {@link #deviceIndex()}, which callers' buffers live in. */
  CUcontext context();

  /** The most bytes one launch moves; larger messages run as several (unbounded: MAX_VALUE). */
  default long maxLaunchBytes() {
    return Long.MAX_VALUE;
  }
}
