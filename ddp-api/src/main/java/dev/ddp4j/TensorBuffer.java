package dev.ddp4j;

/**
 * A typed run of elements that a collective reads or writes: host memory ({@link HostBuffer}) or
 * GPU memory ({@link DeviceBuffer}). A buffer is a descriptor, not an owner: it never frees what it
 * points to, and the memory must stay valid until the collective's {@link Work} completes.
 */
public sealed interface TensorBuffer permits HostBuffer, DeviceBuffer {

  /** The element type. */
  DataType dataType();

  /** The number of elements, {@code >= 0}. */
  long count();

  /** {@code count() * dataType().sizeBytes()}. */
  default long sizeBytes() {
    return dataType().bytesFor(count());
  }
}
