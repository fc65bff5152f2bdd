package dev.ddp4j.collectives.cuda;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.NativePointerObject;
import jcuda.driver.CUfunction;

/**
 * {@code cuLaunchKernel} called straight into {@code libcuda.so.1} through JNA direct mapping, with
 * every argument a primitive: 0.5-1 us per launch, where JCuda's binding spends about 5 us
 * marshalling its parameter objects (measured on 2 x H200, bench/cuda-allreduce-h200.md). It shares
 * the driver (and the calling thread's current context) with JCuda. Where it cannot load, {@link
 * #available()} says so and callers use JCuda.
 */
final class DirectLaunch {

  private static final boolean AVAILABLE;
  private static final Method NATIVE_POINTER;

  static {
    boolean ok;
    Method m = null;
    try {
      NativeLibrary cuda;
      try {
        cuda = NativeLibrary.getInstance("libcuda.so.1");
      } catch (UnsatisfiedLinkError e) {
        cuda = NativeLibrary.getInstance("cuda");
      }
      Native.register(DirectLaunch.class, cuda);
      m = NativePointerObject.class.getDeclaredMethod("getNativePointer");
      m.setAccessible(true);
      ok = true;
    } catch (Throwable e) {
      ok = false;
    }
    AVAILABLE = ok;
    NATIVE_POINTER = m;
  }

  private DirectLaunch() {}

  private static native int cuLaunchKernel(
      long function,
      int gridX,
      int gridY,
      int gridZ,
      int blockX,
      int blockY,
      int blockZ,
      int sharedMemBytes,
      long stream,
      long kernelParams,
      long extra);

  static boolean available() {
    return AVAILABLE;
  }

  /** The raw CUfunction handle of a JCuda function object. */
  static long handle(CUfunction f) {
    try {
      return (long) NATIVE_POINTER.invoke(f);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read a JCuda function handle", e);
    }
  }

  /**
   * A {@code void*[1]} in native memory that points at {@code params} (a direct buffer): the
   * kernelParams array of a kernel whose only parameter is that struct.
   */
  static ByteBuffer paramArray(ByteBuffer params) {
    ByteBuffer array = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
    array.putLong(0, Pointer.nativeValue(Native.getDirectBufferPointer(params)));
    return array;
  }

  static long address(ByteBuffer direct) {
    return Pointer.nativeValue(Native.getDirectBufferPointer(direct));
  }

  /** Launches a 1-D grid; returns the CUresult. */
  static int launch(long function, int blocks, int threads, long stream, long kernelParams) {
    return cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, stream, kernelParams, 0);
  }
}
