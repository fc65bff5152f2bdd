package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.reduce.UnsafeMemory;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * The pinned host memory of the host-staged path: {@code slots} data slots that chunks pass through
 * on their way device -> host collective -> device, and one page of flags, mapped into the device,
 * through which the GPU's copy streams and the host's staging thread hand chunks to each other.
 *
 * <pre>
 *   data (cuMemHostAlloc, portable):   | slot 0 | slot 1 | ... | slot S-1 |   slotBytes each
 *   flags (cuMemHostAlloc, portable + device-mapped), one 64-byte line each:
 *     offset 64 s         inFlag[s]   written by the copy-in stream (cuStreamWriteValue32) once
 *                                     chunk v is in slot s: value v; read by the staging thread
 *     offset 2048 + 64 s  outFlag[s]  written by the staging thread once the host collective of
 *                                     chunk v is done (or failed): value v; the copy-out stream
 *                                     waits on it (cuStreamWaitValue32, cyclic GEQ)
 * </pre>
 *
 * Chunk values count up from 1 over the group's life and are compared cyclically, so they may wrap.
 */
final class PinnedStaging implements AutoCloseable {

  static final int MAX_SLOTS = 32;
  private static final int FLAG_PAGE_BYTES = 4096;
  private static final int OUT_FLAGS_OFFSET = 2048;
  private static final int CU_MEMHOSTALLOC_PORTABLE = 1;
  private static final int CU_MEMHOSTALLOC_DEVICEMAP = 2;
  private static final VarHandle INT =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  private final int slots;
  private final long slotBytes;
  private final Pointer data = new Pointer();
  private final Pointer flagsHost = new Pointer();
  private final long dataAddress;
  private final ByteBuffer flags;
  private final long flagsDevice;
  private boolean freed;

  PinnedStaging(int slots, long slotBytes) {
    if (slots < 2 || slots > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "slots : " + slots + " (expected: 2 to " + MAX_SLOTS + ")");
    }
    this.slots = slots;
    this.slotBytes = slotBytes;
    long bytes = slots * slotBytes;
    Cu.check(
        JCudaDriver.cuMemHostAlloc(data, bytes, CU_MEMHOSTALLOC_PORTABLE),
        "cuMemHostAlloc of " + bytes + " bytes of pinned staging memory");
    int rc =
        JCudaDriver.cuMemHostAlloc(
            flagsHost, FLAG_PAGE_BYTES, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (rc != 0) {
      JCudaDriver.cuMemFreeHost(data);
      Cu.check(rc, "cuMemHostAlloc of the staging flags");
    }
    this.dataAddress = UnsafeMemory.addressOf(data.getByteBuffer(0, bytes));
    this.flags = flagsHost.getByteBuffer(0, FLAG_PAGE_BYTES).order(ByteOrder.nativeOrder());
    for (int i = 0; i < FLAG_PAGE_BYTES; i += 4) {
      flags.putInt(i, 0);
    }
    CUdeviceptr dev = new CUdeviceptr();
    Cu.check(JCudaDriver.cuMemHostGetDevicePointer(dev, flagsHost, 0), "cuMemHostGetDevicePointer");
    this.flagsDevice = Cu.address(dev);
  }

  int slots() {
    return slots;
  }

  long slotBytes() {
    return slotBytes;
  }

  long pinnedBytes() {
    return slots * slotBytes + FLAG_PAGE_BYTES;
  }

  /** The host address of byte {@code offset} of slot {@code slot}. */
  long address(int slot, long offset) {
    return dataAddress + slot * slotBytes + offset;
  }

  /** The same byte as a JCuda pointer, for the async copies. */
  Pointer pointer(int slot, long offset) {
    return data.withByteOffset(slot * slotBytes + offset);
  }

  CUdeviceptr inFlagDevice(int slot) {
    return Cu.ptr(flagsDevice + 64L * slot);
  }

  CUdeviceptr outFlagDevice(int slot) {
    return Cu.ptr(flagsDevice + OUT_FLAGS_OFFSET + 64L * slot);
  }

  /** Whether chunk {@code value} (or a later one) has reached slot {@code slot}. */
  boolean arrived(int slot, int value) {
    int seen = (int) INT.getVolatile(flags, 64 * slot);
    return seen - value >= 0;
  }

  /** Tells the copy-out stream that chunk {@code value} in slot {@code slot} is ready. */
  void release(int slot, int value) {
    INT.setVolatile(flags, OUT_FLAGS_OFFSET + 64 * slot, value);
  }

  /** Frees both allocations; no stream may still wait on or copy from them. */
  @Override
  public void close() {
    if (!freed) {
      freed = true;
      JCudaDriver.cuMemFreeHost(data);
      JCudaDriver.cuMemFreeHost(flagsHost);
    }
  }
}
