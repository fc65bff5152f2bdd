package dev.ddp4j.collectives.topology;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Finds out, without failing, whether this process can use CUDA, and lists the GPUs it sees: the
 * driver probe under {@link GpuDiscovery}, also used to pick the {@code auto} backend and to skip
 * GPU tests with a reason where there is no GPU. It lives in {@code topology}, below the executors,
 * so that discovery imports no executor package.
 */
public final class CudaProbe {

  /**
   * One visible GPU: its ordinal in this process, its PCI bus id (e.g. {@code 0000:18:00.0}) and
   * its compute capability as {@code 10 * major + minor} ({@code 90} for 9.0).
   */
  public record Gpu(
      int ordinal, String name, String pciBusId, long totalMemoryBytes, int computeCapability) {}

  private CudaProbe() {}

  /**
   * Empty if the CUDA driver loads and sees at least one GPU; otherwise why not, e.g. {@code no
   * NVIDIA driver: /dev/nvidiactl is absent}. Checks the device node first so CPU machines never
   * load JCuda's natives.
   */
  public static Optional<String> unavailableReason() {
    if (!Files.exists(Path.of("/dev/nvidiactl"))) {
      return Optional.of("no NVIDIA driver: /dev/nvidiactl is absent");
    }
    try {
      JCudaDriver.setExceptionsEnabled(false);
      int rc = JCudaDriver.cuInit(0);
      if (rc != CUresult.CUDA_SUCCESS) {
        return Optional.of("cuInit failed: " + CUresult.stringFor(rc));
      }
      int[] count = new int[1];
      rc = JCudaDriver.cuDeviceGetCount(count);
      if (rc != CUresult.CUDA_SUCCESS) {
        return Optional.of("cuDeviceGetCount failed: " + CUresult.stringFor(rc));
      }
      return count[0] > 0
          ? Optional.empty()
          : Optional.of("the CUDA driver sees no GPU (check CUDA_VISIBLE_DEVICES)");
    } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
      return Optional.of("JCuda natives or libcuda.so.1 did not load: " + e.getMessage());
    }
  }

  /**
   * The GPUs this process sees, in CUDA ordinal order.
   *
   * @throws IllegalStateException with {@link #unavailableReason()} when CUDA is not usable
   */
  public static List<Gpu> gpus() {
    Optional<String> why = unavailableReason();
    if (why.isPresent()) {
      throw new IllegalStateException("CUDA is not usable here: " + why.get());
    }
    int[] count = new int[1];
    JCudaDriver.cuDeviceGetCount(count);
    List<Gpu> out = new ArrayList<>();
    for (int i = 0; i < count[0]; i++) {
      CUdevice dev = new CUdevice();
      JCudaDriver.cuDeviceGet(dev, i);
      byte[] name = new byte[256];
      JCudaDriver.cuDeviceGetName(name, name.length, dev);
      String[] bus = new String[1];
      JCudaDriver.cuDeviceGetPCIBusId(bus, 32, dev);
      long[] mem = new long[1];
      JCudaDriver.cuDeviceTotalMem(mem, dev);
      out.add(new Gpu(i, cString(name), bus[0].trim(), mem[0], computeCapability(dev)));
    }
    return out;
  }

  /** {@code dev}'s compute capability as {@code 10 * major + minor} ({@code 90} for 9.0). */
  static int computeCapability(CUdevice dev) {
    int[] major = new int[1];
    int[] minor = new int[1];
    JCudaDriver.cuDeviceGetAttribute(
        major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    JCudaDriver.cuDeviceGetAttribute(
        minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    return 10 * major[0] + minor[0];
  }

  private static String cString(byte[] b) {
    int n = 0;
    while (n < b.length && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
  }
}
