package dev.ddp4j.runtime.nd4jcuda;

import org.nd4j.linalg.factory.Nd4j;

/**
 * Chooses how DdpModel hands ND4J arrays to a process group, from ND4J's backend and the group's:
 *
 * <table>
 *   <caption>What DdpModel passes to collectives</caption>
 *   <tr><th>ND4J backend</th><th>group</th><th>buffers</th></tr>
 *   <tr><td>CPU</td><td>cpu</td><td>host memory in place (as before)</td></tr>
 *   <tr><td>CUDA</td><td>cuda</td><td>device memory in place on ND4J's stream ({@link Nd4jDevice})</td></tr>
 *   <tr><td>CUDA</td><td>cpu</td><td>ND4J's host copy, synchronised before and marked newest after</td></tr>
 *   <tr><td>CPU</td><td>cuda, nccl</td><td>host memory in place, through the group's host half (a
 *   cpu group; ND4J 1.0.0-M2.1 cannot compute on every GPU, see {@link Nd4jCudaBuild})</td></tr>
 * </table>
 *
 * The CUDA implementation is found by name with {@link Class#forName}, so this class (and DdpModel)
 * never links against {@code nd4j-cuda-11.6}: on the CPU backend the CUDA jar may be absent.
 */
public final class Nd4jDevices {

  static final String IMPLEMENTATION = "dev.ddp4j.runtime.nd4jcuda.JCublasDevice";

  private Nd4jDevices() {}

  /** Whether ND4J runs on its CUDA backend (decided by which backend jar ND4J found). */
  public static boolean nd4jOnCuda() {
    return !Nd4j.getEnvironment().isCPU();
  }

  /**
   * The device view of ND4J's arrays, or null where ND4J runs on the CPU (nothing CUDA is loaded
   * then).
   *
   * @throws IllegalStateException if ND4J is on CUDA but ddp4j's CUDA bridge cannot be loaded
   */
  public static Nd4jDevice load() {
    if (!nd4jOnCuda()) {
      return null;
    }
    try {
      return (Nd4jDevice) Class.forName(IMPLEMENTATION).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new IllegalStateException(
          "ND4J runs on its CUDA backend but "
              + IMPLEMENTATION
              + " could not be loaded ("
              + e
              + "); build with -Pnd4j-cuda so that org.nd4j:nd4j-cuda-11.6 is on the classpath",
          e);
    }
  }

  /**
   * Makes ND4J allocate and compute on GPU {@code localRank} for the calling thread, as the {@code
   * cuda} group does (one process per GPU, {@code LOCAL_RANK} picks it). Call it before building
   * the model; a no-op on ND4J's CPU backend. Without it ND4J may place this rank's arrays on
   * another GPU, and the group refuses them ("the buffer is on GPU 0 but this rank runs on GPU 1").
   */
  public static void pinThreadToLocalRank(int localRank) {
    if (nd4jOnCuda()) {
      Nd4j.getAffinityManager().unsafeSetDevice(localRank);
    }
  }

  /** Where DdpModel's gradients travel, decided by where ND4J keeps them. */
  public enum GradientPath {
    /** ND4J on its CPU backend: host memory in place, over any group (its host half on GPUs). */
    HOST,
    /** ND4J on CUDA with a cuda or nccl group: device memory in place on ND4J's stream. */
    DEVICE,
    /** ND4J on CUDA with a cpu group: ND4J's host copy, synchronised before, marked after. */
    HOST_STAGED
  }

  /** The path for ND4J on CUDA ({@code nd4jOnCuda}) or not, and a group of {@code groupBackend}. */
  public static GradientPath path(boolean nd4jOnCuda, String groupBackend) {
    if (!nd4jOnCuda) {
      return GradientPath.HOST;
    }
    return deviceBackend(groupBackend) ? GradientPath.DEVICE : GradientPath.HOST_STAGED;
  }

  /** True for the backends whose groups take device buffers: {@code cuda} and {@code nccl}. */
  public static boolean deviceBackend(String groupBackend) {
    return "cuda".equals(groupBackend) || "nccl".equals(groupBackend);
  }
}
