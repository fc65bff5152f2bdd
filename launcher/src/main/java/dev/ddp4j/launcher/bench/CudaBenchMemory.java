package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The bench buffers of a device group (the cuda and nccl backends): two allocations on the rank's
 * GPU, collectives on a stream of their own, and host copies for the correctness check.
 */
final class CudaBenchMemory implements BenchMemory {

  private final CUdeviceptr in = new CUdeviceptr();
  private final CUdeviceptr out = new CUdeviceptr();
  private final CUstream stream = new CUstream();
  private final long inAddress;
  private final long outAddress;
  private final int device;
  private final ByteBuffer hostIn;
  private final ByteBuffer hostOut;

  CudaBenchMemory(DeviceGroup pg, long maxBytes) {
    JCudaDriver.cuCtxSetCurrent(pg.context());
    long bytes = Math.max(maxBytes, 64);
    Cu.check(JCudaDriver.cuMemAlloc(in, bytes), "cuMemAlloc of the bench's " + bytes + " bytes");
    Cu.check(JCudaDriver.cuMemAlloc(out, bytes), "cuMemAlloc of the bench's " + bytes + " bytes");
    Cu.check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    inAddress = Cu.address(in);
    outAddress = Cu.address(out);
    device = pg.deviceIndex();
    hostIn = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
    hostOut = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
  }

  @Override
  public TensorBuffer input(long bytes, DataType type) {
    return new DeviceBuffer(inAddress, device, Cu.handle(stream), bytes / type.sizeBytes(), type);
  }

  @Override
  public TensorBuffer output(long bytes, DataType type) {
    return new DeviceBuffer(outAddress, device, Cu.handle(stream), bytes / type.sizeBytes(), type);
  }

  @Override
  public ByteBuffer hostIn() {
    return hostIn;
  }

  @Override
  public ByteBuffer hostOut() {
    return hostOut;
  }

  @Override
  public void upload(long bytes) {
    Cu.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
    if (bytes > 0) {
      Cu.check(JCudaDriver.cuMemcpyHtoD(in, Pointer.to(hostIn), bytes), "cuMemcpyHtoD");
    }
    // The collectives' stream does not wait for the synchronous copy's stream.
    Cu.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  @Override
  public void download(long inBytes, long outBytes) {
    Cu.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
    if (inBytes > 0) {
      Cu.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(hostIn), in, inBytes), "cuMemcpyDtoH");
    }
    if (outBytes > 0) {
      Cu.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(hostOut), out, outBytes), "cuMemcpyDtoH");
    }
  }

  @Override
  public long sumOverRanks(ProcessGroup pg, long value) {
    ByteBuffer word = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, value);
    Cu.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
    Cu.check(JCudaDriver.cuMemcpyHtoD(out, Pointer.to(word), 8), "cuMemcpyHtoD");
    Cu.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize");
    pg.allReduce(
            new DeviceBuffer(outAddress, device, Cu.handle(stream), 1, DataType.INT64),
            ReduceOp.SUM)
        .await();
    Cu.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(word), out, 8), "cuMemcpyDtoH");
    return word.getLong(0);
  }

  @Override
  public boolean queueAll() {
    return true;
  }

  @Override
  public void close() {
    JCudaDriver.cuStreamSynchronize(stream);
    JCudaDriver.cuStreamDestroy(stream);
    JCudaDriver.cuMemFree(in);
    JCudaDriver.cuMemFree(out);
  }
}
