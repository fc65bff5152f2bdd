package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import dev.ddp4j.collectives.topology.CudaProbe;
import java.util.Optional;
import java.util.Set;

/**
 * Which GPUs ND4J's CUDA build can compute on, and what DdpModel says when a model on a GPU machine
 * computes on the CPU instead. ND4J 1.0.0-M2.1 ({@code nd4j-cuda-11.6}) is the newest on Maven
 * Central; its {@code libnd4jcuda.so} holds machine code for the architectures below and no PTX, so
 * no driver can compile it for a newer GPU: it runs on V100, T4, A100, RTX 30 and 40 (compute
 * capability 8.9 runs sm_86 code), never on H100 or H200 (9.0).
 */
public final class Nd4jCudaBuild {

  /**
   * Read from {@code org/nd4j/linalg/jcublas/bindings/linux-x86_64/libnd4jcuda.so} of {@code
   * org.nd4j:nd4j-cuda-11.6:1.0.0-M2.1:linux-x86_64} (its {@code .nv_fatbin}: 228 containers, each
   * with these nine architectures, 2052 entries, no PTX) by the parser {@code launcher.jar doctor}
   * uses on the jar itself.
   */
  public static final FatBinaryArchitectures ARCHITECTURES =
      new FatBinaryArchitectures(Set.of(37, 50, 52, 60, 61, 70, 75, 80, 86), Set.of());

  /** The ND4J release these architectures are of. */
  public static final String RELEASE = "ND4J 1.0.0-M2.1";

  private Nd4jCudaBuild() {}

  /**
   * Rank 0's line when a {@code groupBackend} group's model computes on ND4J's CPU backend: where
   * the model and its gradients run, and why not on {@code gpu} (this rank's GPU, at {@code
   * deviceIndex}; empty with {@code why} where CUDA cannot say).
   */
  public static String hostComputeNotice(
      String groupBackend, int deviceIndex, Optional<CudaProbe.Gpu> gpu, String why) {
    String head =
        "DdpModel: the model computes on the CPU (ND4J's CPU backend, nd4j-native) and its"
            + " gradients take the "
            + groupBackend
            + " group's host half (shared memory, sockets)";
    if (gpu.isEmpty()) {
      return head + "; GPU " + deviceIndex + " could not be examined: " + why;
    }
    CudaProbe.Gpu g = gpu.get();
    int cc = g.computeCapability();
    String named =
        "GPU "
            + g.ordinal()
            + " ("
            + g.name()
            + ", compute capability "
            + cc / 10
            + "."
            + cc % 10
            + ")";
    if (!ARCHITECTURES.runsOn(cc / 10, cc % 10)) {
      return head
          + ": "
          + named
          + " cannot run "
          + RELEASE
          + "'s CUDA build, which holds "
          + ARCHITECTURES.describe();
    }
    return head
        + "; ND4J's CUDA backend could compute on "
        + named
        + ": build with -Pnd4j-cuda on a machine with the CUDA 11.6 runtime";
  }
}
