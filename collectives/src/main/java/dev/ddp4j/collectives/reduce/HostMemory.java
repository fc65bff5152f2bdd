package dev.ddp4j.collectives.reduce;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import java.nio.ByteBuffer;

/**
 * Where a {@link HostBuffer}'s bytes are, as an Unsafe (base, offset) pair: {@code base} is the
 * Java array (or null for native memory) and {@code offset} the byte offset of element 0 in it (or
 * the native address). Holding a HostMemory keeps its array or ByteBuffer reachable.
 *
 * @param base the array behind the elements, or null for native memory
 * @param offset the byte offset of element 0 within {@code base}, or its address
 * @param sizeBytes the length in bytes
 * @param dataType the element type
 * @param keepAlive the ByteBuffer whose memory this is, so a direct buffer is not freed early
 */
public record HostMemory(
    Object base, long offset, long sizeBytes, DataType dataType, Object keepAlive) {

  /** The memory behind {@code buffer}. */
  public static HostMemory of(HostBuffer buffer) {
    DataType type = buffer.dataType();
    long bytes = buffer.sizeBytes();
    switch (buffer.storage()) {
      case ARRAY:
        Object array = buffer.array();
        return new HostMemory(
            array,
            arrayBase(array) + (long) buffer.arrayOffset() * type.sizeBytes(),
            bytes,
            type,
            null);
      case NIO:
        ByteBuffer nio = buffer.byteBuffer();
        if (nio.isDirect()) {
          return new HostMemory(null, UnsafeMemory.addressOf(nio), bytes, type, nio);
        }
        if (!nio.hasArray()) {
          throw new IllegalArgumentException(
              buffer
                  + " is a read-only heap ByteBuffer, which a collective cannot write"
                  + " (expected: a writable heap or direct ByteBuffer)");
        }
        return new HostMemory(
            nio.array(), UnsafeMemory.BYTE_BASE + nio.arrayOffset(), bytes, type, nio);
      default:
        return new HostMemory(null, buffer.address(), bytes, type, null);
    }
  }

  /** Native memory at {@code address}. */
  public static HostMemory ofAddress(long address, long sizeBytes, DataType type) {
    return new HostMemory(null, address, sizeBytes, type, null);
  }

  private static long arrayBase(Object array) {
    if (array instanceof float[]) {
      return UnsafeMemory.FLOAT_BASE;
    } else if (array instanceof double[]) {
      return UnsafeMemory.DOUBLE_BASE;
    } else if (array instanceof int[]) {
      return UnsafeMemory.INT_BASE;
    } else if (array instanceof long[]) {
      return UnsafeMemory.LONG_BASE;
    } else if (array instanceof short[]) {
      return UnsafeMemory.SHORT_BASE;
    } else if (array instanceof byte[]) {
      return UnsafeMemory.BYTE_BASE;
    }
    throw new IllegalArgumentException("not a primitive array: " + array.getClass());
  }

  /** The elements count of this memory. */
  public long count() {
    return sizeBytes / dataType.sizeBytes();
  }

  /** Elements {@code [from, from + count)} of this memory. */
  public HostMemory slice(long from, long count) {
    int size = dataType.sizeBytes();
    return new HostMemory(base, offset + from * size, count * size, dataType, keepAlive);
  }

  /** Copies all of {@code src} (same size) into this memory. */
  public void copyFrom(HostMemory src) {
    if (src.sizeBytes != sizeBytes) {
      throw new IllegalArgumentException(
          "copy of " + src.sizeBytes + " bytes into " + sizeBytes + " (expected: equal sizes)");
    }
    UnsafeMemory.copy(src.base, src.offset, base, offset, sizeBytes);
  }
}
