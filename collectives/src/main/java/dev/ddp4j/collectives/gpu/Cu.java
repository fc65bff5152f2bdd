package dev.ddp4j.collectives.gpu;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import jcuda.NativePointerObject;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;

/**
 * Small helpers over JCuda's driver API: result checks with messages that say what failed, and the
 * conversion between the {@code long} handles of {@link dev.ddp4j.DeviceBuffer} and JCuda's handle
 * objects (whose raw-value constructors and getters are not public).
 */
public final class Cu {

  private static final Constructor<CUstream> STREAM_OF_LONG;
  private static final Method NATIVE_POINTER;
  private static final Method BYTE_OFFSET;

  static {
    try {
      STREAM_OF_LONG = CUstream.class.getDeclaredConstructor(long.class);
      STREAM_OF_LONG.setAccessible(true);
      NATIVE_POINTER = NativePointerObject.class.getDeclaredMethod("getNativePointer");
      NATIVE_POINTER.setAccessible(true);
      BYTE_OFFSET = jcuda.Pointer.class.getDeclaredMethod("getByteOffset");
      BYTE_OFFSET.setAccessible(true);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private Cu() {}

  /** Throws a {@link CudaException} naming {@code what} unless {@code result} is CUDA_SUCCESS. */
  public static void check(int result, String what) {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new CudaException(what + " failed: " + CUresult.stringFor(result), result);
    }
  }

  /** The kernel {@code name} of {@code module}; throws naming it when the module lacks it. */
  public static jcuda.driver.CUfunction function(jcuda.driver.CUmodule module, String name) {
    jcuda.driver.CUfunction f = new jcuda.driver.CUfunction();
    check(
        jcuda.driver.JCudaDriver.cuModuleGetFunction(f, module, name),
        "cuModuleGetFunction " + name);
    return f;
  }

  /** A JCuda device pointer with the raw value {@code address}. */
  public static CUdeviceptr ptr(long address) {
    return new CUdeviceptr().withByteOffset(address);
  }

  /** The raw value of a device pointer that JCuda filled in (cuMemAlloc, cuIpcOpenMemHandle). */
  public static long address(CUdeviceptr p) {
    try {
      return (long) NATIVE_POINTER.invoke(p) + (long) BYTE_OFFSET.invoke(p);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read a JCuda pointer's value", e);
    }
  }

  /**
   * A JCuda stream handle for the raw {@code CUstream} value {@code handle} (0: legacy default).
   */
  public static CUstream stream(long handle) {
    try {
      return STREAM_OF_LONG.newInstance(handle);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make a JCuda stream handle", e);
    }
  }

  /** The raw value of a JCuda stream handle. */
  public static long handle(CUstream s) {
    try {
      return (long) NATIVE_POINTER.invoke(s);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read a JCuda stream handle", e);
    }
  }

  /**
   * Loads the fat binary on the classpath at {@code resource} into {@code module} in the current
   * context; a GPU that the binary holds no code for fails here, naming its compute capability.
   */
  public static void loadModule(jcuda.driver.CUmodule module, String resource) {
    byte[] image;
    try (java.io.InputStream in = Cu.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is missing from the classpath (build it with scripts/build-kernels.sh)");
      }
      image = in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
    FatBinaryArchitectures.requireRunsOnCurrentGpu(image);
    check(
        jcuda.driver.JCudaDriver.cuModuleLoadData(module, image),
        "cuModuleLoadData of " + resource);
  }
}
