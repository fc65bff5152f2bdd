package dev.ddp4j.runtime.nd4jcuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DeviceBuffer;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The ND4J CUDA bridge against real device memory: the pointer and stream it hands out address
 * exactly the array's elements (views included), and a device write announced with {@code
 * deviceWritten} is what ND4J reads back. Runs only with ND4J's CUDA backend ({@code -Pnd4j-cuda})
 * on a machine with a CUDA 11.6 runtime; everywhere else it is skipped with the reason.
 */
@Tag("gpu")
class JCublasDeviceTest {

  private static Nd4jDevice device;

  @BeforeEach
  void needsNd4jOnCuda() {
    boolean onCuda;
    try {
      onCuda = Nd4jDevices.nd4jOnCuda();
    } catch (Throwable e) { // ND4J's CUDA backend without CUDA 11 fails to initialise
      onCuda = false;
      Assumptions.abort(
          "ND4J's CUDA backend did not initialise (" + e + "); needs a CUDA 11.6 runtime");
    }
    Assumptions.assumeTrue(
        onCuda,
        "needs ND4J's CUDA backend: ND4J runs on its CPU backend (build with -Pnd4j-cuda on a machine with"
            + " a CUDA 11.6 runtime)");
    device = Nd4jDevices.load();
    JCudaDriver.setExceptionsEnabled(true);
  }

  /** Waits for everything queued in the device's primary context (ND4J's too) and reads. */
  private static float[] readDevice(DeviceBuffer b) {
    primaryContext(b.deviceIndex());
    JCudaDriver.cuCtxSynchronize();
    float[] out = new float[(int) b.count()];
    JCudaDriver.cuMemcpyDtoH(Pointer.to(out), at(b.devicePointer()), b.sizeBytes());
    return out;
  }

  private static void writeDevice(DeviceBuffer b, float[] values) {
    primaryContext(b.deviceIndex());
    JCudaDriver.cuCtxSynchronize();
    JCudaDriver.cuMemcpyHtoD(at(b.devicePointer()), Pointer.to(values), b.sizeBytes());
  }

  private static CUdeviceptr at(long address) {
    return new CUdeviceptr().withByteOffset(address);
  }

  private static void primaryContext(int ordinal) {
    JCudaDriver.cuInit(0);
    CUdevice dev = new CUdevice();
    JCudaDriver.cuDeviceGet(dev, ordinal);
    CUcontext ctx = new CUcontext();
    JCudaDriver.cuDevicePrimaryCtxRetain(ctx, dev);
    JCudaDriver.cuCtxSetCurrent(ctx);
  }

  @Test
  void shouldAddressAViewsElementsOnNd4jsStream() {
    INDArray flat = Nd4j.linspace(1, 10, 10).castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT);
    INDArray view = flat.get(NDArrayIndex.interval(3, 7));
    DeviceBuffer b = device.describe(view);
    assertThat(b.count()).isEqualTo(4);
    assertThat(b.stream()).as("ND4J's execution stream, not the legacy default").isNotZero();
    assertThat(readDevice(b)).containsExactly(4f, 5f, 6f, 7f);
  }

  @Test
  void shouldMakeNd4jReadWhatWasWrittenToTheDevice() {
    INDArray flat = Nd4j.zeros(org.nd4j.linalg.api.buffer.DataType.FLOAT, 8);
    flat.getFloat(0); // leaves a host copy that is current, which must not be read afterwards
    INDArray view = flat.get(NDArrayIndex.interval(2, 5));
    DeviceBuffer b = device.describe(view);
    writeDevice(b, new float[] {7f, 8f, 9f});
    device.deviceWritten(view);
    assertThat(flat.toFloatVector()).containsExactly(0f, 0f, 7f, 8f, 9f, 0f, 0f, 0f);
  }
}
