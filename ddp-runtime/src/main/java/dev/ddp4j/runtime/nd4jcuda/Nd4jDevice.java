package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.DeviceBuffer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * ND4J's CUDA memory as the {@code cuda} process group sees it. The only implementation, {@code
 * JCublasDevice}, is compiled against {@code nd4j-cuda-11.6} (a {@code provided} dependency, so the
 * code compiles in CI without the CUDA profile) and is loaded reflectively by {@link Nd4jDevices}
 * only when ND4J's backend is CUDA: on the CPU backend no ND4J CUDA class is ever loaded, and the
 * CUDA jar need not be on the classpath.
 */
public interface Nd4jDevice {

  /**
   * {@code array}'s elements in place in device memory, ordered on the stream ND4J runs its kernels
   * on for this thread, so a collective on the result starts after every kernel already queued
   * (backward included) without a host synchronisation. The array must be contiguous; if the host
   * copy was newer, it is copied to the device first.
   */
  DeviceBuffer describe(INDArray array);

  /**
   * Tells ND4J's allocator that the device copy of {@code array} was (or is being, in stream order)
   * written outside ND4J, so that a later host read copies it back instead of using a stale host
   * copy.
   */
  void deviceWritten(INDArray array);
}
