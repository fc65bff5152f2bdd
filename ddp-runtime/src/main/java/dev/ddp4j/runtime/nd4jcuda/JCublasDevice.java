package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.runtime.comm.NdBuffers;
import org.nd4j.jita.allocator.impl.AtomicAllocator;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.jcublas.context.CudaContext;

/**
 * {@link Nd4jDevice} over ND4J's CUDA backend ({@code nd4j-cuda-11.6} 1.0.0-M2.1): the device
 * pointer comes from ND4J's {@code AtomicAllocator}, the stream is the execution stream of the
 * calling thread's {@code CudaContext} (the stream libnd4j launches this thread's kernels on), and
 * {@code tickDeviceWrite} marks the device copy as the newest.
 *
 * <p>Loaded only through {@link Nd4jDevices#load()} when ND4J's backend is CUDA; referencing this
 * class on the CPU backend would fail, since {@code nd4j-cuda-11.6} is a compile-only dependency
 * there.
 */
final class JCublasDevice implements Nd4jDevice {

  @Override
  public DeviceBuffer describe(INDArray array) {
    if (array.length() > 0 && array.elementWiseStride() != 1) {
      throw new IllegalArgumentException(
          "array of shape "
              + java.util.Arrays.toString(array.shape())
              + " is not contiguous; collectives need a flat buffer or an interval of one");
    }
    // Copies host to device only if ND4J's host copy is newer (e.g. after a host-side assign).
    Nd4j.getAffinityManager().ensureLocation(array, AffinityManager.Location.DEVICE);
    AtomicAllocator allocator = AtomicAllocator.getInstance();
    CudaContext context = allocator.getDeviceContext();
    // Views share the root buffer's allocation; address the root and add the view's element offset
    // ourselves, since whether libnd4j's view pointers include the offset differs between releases.
    DataBuffer data = array.data();
    DataBuffer root = data.originalDataBuffer() == null ? data : data.originalDataBuffer();
    long offset = array.offset();
    if (offset + array.length() > root.length()) {
      throw new IllegalStateException(
          "view of "
              + array.length()
              + " elements at offset "
              + offset
              + " does not fit its root buffer of "
              + root.length()
              + " elements");
    }
    long base = allocator.getPointer(root, context).address();
    long stream = context.getOldStream().address();
    int device = allocator.getDeviceId();
    return new DeviceBuffer(
        base + offset * root.getElementSize(),
        device,
        stream,
        array.length(),
        NdBuffers.dataType(array.dataType()));
  }

  @Override
  public void deviceWritten(INDArray array) {
    AtomicAllocator allocator = AtomicAllocator.getInstance();
    allocator.tickDeviceWrite(array);
    // A view may carry its own allocation point; the root's is what host reads of the whole
    // gradient (the updater, checkpoints) consult.
    DataBuffer root = array.data().originalDataBuffer();
    if (root != null) {
      allocator.getAllocationPoint(root).tickDeviceWrite();
    }
  }
}
