package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.WorkerEnvironment;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * What a device group holds on its GPU: the device's primary context (retained, so shared with the
 * runtime API and ND4J), the event pool of its works, and an internal stream with a zeroed int, the
 * word its barrier reduces. Opened once per group, released when the group closes.
 *
 * @param index the CUDA device ordinal
 * @param events the pool the group's works take their events from
 * @param internalStream the stream of the group's barriers, which no caller's buffer names
 * @param barrierWordPointer the int a barrier reduces ({@link #barrierWord()})
 */
public record GroupDevice(
    int index,
    CUdevice device,
    CUcontext context,
    EventPool events,
    CUstream internalStream,
    CUdeviceptr barrierWordPointer) {

  /** Device memory the barrier word takes (an int, padded). */
  public static final long BARRIER_BYTES = 16;

  /**
   * Initialises the driver and counts the GPUs this process sees; refuses a worker whose {@code
   * LOCAL_RANK} has none unless {@code shareGpus}.
   *
   * @param oneProcessPerGpu why the backend needs a GPU per local rank, for the error
   * @return how many GPUs this process sees
   */
  public static int requireGpuOf(
      WorkerEnvironment worker, boolean shareGpus, String oneProcessPerGpu) {
    Cu.check(JCudaDriver.cuInit(0), "cuInit");
    int[] count = new int[1];
    Cu.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount");
    if (worker.localRank() >= count[0] && !shareGpus) {
      throw new DdpException(
          "rank "
              + worker.rank()
              + ": LOCAL_RANK="
              + worker.localRank()
              + " but this process sees "
              + count[0]
              + " GPU(s) ("
              + oneProcessPerGpu
              + ": start at most "
              + count[0]
              + " workers per node, or check CUDA_VISIBLE_DEVICES)");
    }
    return count[0];
  }

  /**
   * Retains GPU {@code index}'s primary context and makes it current on the calling thread, then
   * makes the internal stream and the barrier word; on a failure releases what it took.
   */
  public static GroupDevice open(int index) {
    CUdevice device = new CUdevice();
    Cu.check(JCudaDriver.cuDeviceGet(device, index), "cuDeviceGet " + index);
    CUcontext context = new CUcontext();
    Cu.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
    CUstream stream = new CUstream();
    CUdeviceptr word = new CUdeviceptr();
    boolean streamMade = false;
    boolean wordMade = false;
    try {
      Cu.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      Cu.check(
          JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
          "cuStreamCreate");
      streamMade = true;
      Cu.check(JCudaDriver.cuMemAlloc(word, BARRIER_BYTES), "cuMemAlloc of the barrier word");
      wordMade = true;
      Cu.check(JCudaDriver.cuMemsetD8(word, (byte) 0, BARRIER_BYTES), "cuMemsetD8");
      return new GroupDevice(index, device, context, new EventPool(), stream, word);
    } catch (RuntimeException | Error e) {
      if (wordMade) {
        JCudaDriver.cuMemFree(word);
      }
      if (streamMade) {
        JCudaDriver.cuStreamDestroy(stream);
      }
      JCudaDriver.cuDevicePrimaryCtxRelease(device);
      throw e;
    }
  }

  /** The int a barrier reduces, on the internal stream. */
  public DeviceBuffer barrierWord() {
    return new DeviceBuffer(
        Cu.address(barrierWordPointer), index, Cu.handle(internalStream), 1, DataType.INT32);
  }

  /** Makes the context current on the calling thread (a close may run on any thread). */
  public void makeCurrent() {
    JCudaDriver.cuCtxSetCurrent(context);
  }

  /**
   * Frees the barrier word, the internal stream and the pooled events, and releases the context;
   * needs the context current and nothing left queued on the internal stream.
   */
  public void release() {
    JCudaDriver.cuMemFree(barrierWordPointer);
    JCudaDriver.cuStreamDestroy(internalStream);
    events.destroy();
    JCudaDriver.cuDevicePrimaryCtxRelease(device);
  }
}
