package dev.ddp4j;

/**
 * A run of elements in GPU memory: a CUDA device pointer on device {@code deviceIndex}, and the
 * CUDA stream ({@code CUstream} handle, 0 for the legacy default stream) that orders the caller's
 * work on it. Collectives on a device buffer run after the work already queued on that stream and
 * complete before work queued on it after the collective; {@link Work#await} waits on the host.
 *
 * @param devicePointer a {@code CUdeviceptr} value; may be 0 only when {@code count} is 0
 * @param deviceIndex the CUDA device ordinal in this process (after CUDA_VISIBLE_DEVICES)
 * @param stream the {@code CUstream} handle as a long, 0 for the default stream
 * @param count the number of elements
 * @param dataType the element type
 */
public record DeviceBuffer(
    long devicePointer, int deviceIndex, long stream, long count, DataType dataType)
    implements TensorBuffer {

  public DeviceBuffer {
    if (dataType == null) {
      throw new IllegalArgumentException(
          "dataType : null (expected: one of "
              + java.util.Arrays.toString(DataType.values())
              + ")");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count : " + count + " (expected: >= 0)");
    }
    if (deviceIndex < 0) {
      throw new IllegalArgumentException("deviceIndex : " + deviceIndex + " (expected: >= 0)");
    }
    if (devicePointer == 0 && count > 0) {
      throw new IllegalArgumentException(
          "devicePointer : 0 for " + count + " elements (expected: a CUdeviceptr from cuMemAlloc)");
    }
    if (devicePointer % dataType.sizeBytes() != 0) {
      throw new IllegalArgumentException(
          String.format(
              "devicePointer : 0x%x is not aligned to %d bytes (expected: aligned to the %s element size)",
              devicePointer, dataType.sizeBytes(), dataType));
    }
  }

  /** The same memory on the same device, ordered on another stream. */
  public DeviceBuffer onStream(long newStream) {
    return new DeviceBuffer(devicePointer, deviceIndex, newStream, count, dataType);
  }

  /** Elements {@code [offset, offset + length)} of this buffer. */
  public DeviceBuffer slice(long offset, long length) {
    HostBuffer.checkRange(offset, length, count);
    return new DeviceBuffer(
        devicePointer + dataType.bytesFor(offset), deviceIndex, stream, length, dataType);
  }
}
