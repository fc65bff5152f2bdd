package dev.ddp4j.bench.ddp;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.runtime.bucket.GradientReducer;
import dev.ddp4j.runtime.bucket.ParamRange;
import dev.ddp4j.runtime.cuda.DeviceTrace;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * A model of known pace on one GPU (src/main/cuda/ddp4j_synthetic.cu): layers given as parameter
 * counts and backward times; the backward of layer {@code L} is a kernel that spins {@code
 * backwardNs[L]} nanoseconds on the GPU clock and writes the layer's gradient slice with {@code
 * scale * ((i * 7 + L) % 1009) / 1024} (exact in float32, so reduced gradients can be checked
 * exactly). Parameters and gradients are flat float32 device buffers in layer order; the compute
 * stream is the caller's. Needs the GPU's context current.
 */
public final class SyntheticModel implements AutoCloseable {

  static final String RESOURCE = "/dev/ddp4j/bench/ddp/ddp4j_synthetic.fatbin";
  private static final int THREADS = 256;
  private static final int MAX_BLOCKS = 528;

  private final long[] layerParams;
  private final long[] backwardNs;
  private final long[] offsets;
  private final long total;
  private final int deviceIndex;
  private final CUstream compute;
  private final CUmodule module = new CUmodule();
  private final CUfunction spin;
  private final CUfunction sgd;
  private final CUdeviceptr params = new CUdeviceptr();
  private final CUdeviceptr grads = new CUdeviceptr();

  public SyntheticModel(
      int deviceIndex, long computeStream, long[] layerParams, long[] backwardNs) {
    if (layerParams.length == 0 || layerParams.length != backwardNs.length) {
      throw new IllegalArgumentException(
          layerParams.length
              + " layer sizes and "
              + backwardNs.length
              + " backward times (expected: one of each per layer, at least one layer)");
    }
    this.deviceIndex = deviceIndex;
    this.compute = Cu.stream(computeStream);
    this.layerParams = layerParams.clone();
    this.backwardNs = backwardNs.clone();
    this.offsets = new long[layerParams.length];
    long t = 0;
    for (int i = 0; i < layerParams.length; i++) {
      offsets[i] = t;
      t += layerParams[i];
    }
    this.total = t;
    Cu.check(JCudaDriver.cuModuleLoadData(module, image()), "cuModuleLoadData of " + RESOURCE);
    spin = Cu.function(module, "ddp4j_backward_spin");
    sgd = Cu.function(module, "ddp4j_sgd");
    Cu.check(JCudaDriver.cuMemAlloc(params, 4 * total), "cuMemAlloc of " + 4 * total + " bytes");
    Cu.check(JCudaDriver.cuMemAlloc(grads, 4 * total), "cuMemAlloc of " + 4 * total + " bytes");
    Cu.check(JCudaDriver.cuMemsetD32(params, 0, total), "cuMemsetD32");
    Cu.check(JCudaDriver.cuMemsetD32(grads, 0, total), "cuMemsetD32");
  }

  public int layers() {
    return layerParams.length;
  }

  public long parameters() {
    return total;
  }

  /** Where each layer's gradient sits in the flat buffer, for {@code BucketPlan.of}. */
  public List<ParamRange> ranges() {
    List<ParamRange> out = new ArrayList<>();
    for (int i = 0; i < layerParams.length; i++) {
      out.add(new ParamRange(i, "layer " + i, offsets[i], layerParams[i]));
    }
    return out;
  }

  /** The flat gradient on the compute stream. */
  public DeviceBuffer gradient() {
    return new DeviceBuffer(
        Cu.address(grads), deviceIndex, Cu.handle(compute), total, DataType.FLOAT32);
  }

  /**
   * Queues backward, last layer first, on the compute stream, telling {@code engine} (null: no
   * communication) after each layer; spans go to {@code trace}.
   */
  public void backward(GradientReducer engine, float scale, DeviceTrace trace) {
    for (int layer = layerParams.length - 1; layer >= 0; layer--) {
      int span = trace.begin("backward layer " + layer, DeviceTrace.COMPUTE, compute);
      launchSpin(layer, backwardNs[layer], scale);
      trace.end(span, compute);
      if (engine != null) {
        engine.layerReady(layer);
      }
    }
  }

  /** Queues one spin of layer {@code layer}'s backward kernel lasting {@code ns}. */
  public void launchSpin(int layer, long ns, float scale) {
    long n = layerParams[layer];
    // Device pointers go in as their 64-bit values: what the kernel's pointer parameter holds.
    long slice = Cu.address(grads) + 4 * offsets[layer];
    Pointer args =
        Pointer.to(
            Pointer.to(new long[] {slice}),
            Pointer.to(new long[] {n}),
            Pointer.to(new long[] {ns}),
            Pointer.to(new float[] {scale}),
            Pointer.to(new int[] {layer}));
    Cu.check(
        JCudaDriver.cuLaunchKernel(spin, blocks(n), 1, 1, THREADS, 1, 1, 0, compute, args, null),
        "cuLaunchKernel ddp4j_backward_spin");
  }

  /** Queues the optimizer step {@code param -= lr * grad} on the compute stream. */
  public void sgdStep(float lr) {
    Pointer args =
        Pointer.to(
            Pointer.to(new long[] {Cu.address(params)}),
            Pointer.to(new long[] {Cu.address(grads)}),
            Pointer.to(new long[] {total}),
            Pointer.to(new float[] {lr}));
    Cu.check(
        JCudaDriver.cuLaunchKernel(sgd, blocks(total), 1, 1, THREADS, 1, 1, 0, compute, args, null),
        "cuLaunchKernel ddp4j_sgd");
  }

  /** What backward writes at element {@code i} of layer {@code layer} for {@code scale} 1. */
  public static double unitGradient(int layer, long i) {
    return ((i * 7 + layer) % 1009) / 1024.0;
  }

  /** The gradient copied to the host (synchronises the compute stream first). */
  public float[] downloadGradient() {
    Cu.check(JCudaDriver.cuStreamSynchronize(compute), "cuStreamSynchronize");
    float[] host = new float[Math.toIntExact(total)];
    Cu.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(host), grads, 4 * total), "cuMemcpyDtoH");
    return host;
  }

  public long offset(int layer) {
    return offsets[layer];
  }

  private static int blocks(long n) {
    return (int) Math.max(1, Math.min(MAX_BLOCKS, (n + THREADS - 1) / THREADS));
  }

  private static byte[] image() {
    try (InputStream in = SyntheticModel.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            RESOURCE
                + " is missing from the classpath (build it with scripts/build-ddp-kernels.sh)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + RESOURCE, e);
    }
  }

  @Override
  public void close() {
    JCudaDriver.cuStreamSynchronize(compute);
    JCudaDriver.cuMemFree(params);
    JCudaDriver.cuMemFree(grads);
    JCudaDriver.cuModuleUnload(module);
  }
}
