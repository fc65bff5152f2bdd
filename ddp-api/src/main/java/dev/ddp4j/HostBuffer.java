package dev.ddp4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A run of elements in host memory: part of a Java array, a {@link ByteBuffer} (heap or direct), or
 * native memory at a raw address (such as an ND4J CPU array's data pointer). Elements are always in
 * the machine's native byte order, whatever a ByteBuffer's {@code order()} says, because that is
 * how ND4J and CUDA lay them out.
 *
 * <p>The element type follows the array: {@code float[]} is FLOAT32, {@code double[]} FLOAT64,
 * {@code int[]} INT32, {@code long[]} INT64; {@code short[]} holds FLOAT16 or BFLOAT16 bit patterns
 * and {@code byte[]} INT8 or UINT8, so those two name their type.
 */
public final class HostBuffer implements TensorBuffer {

  /** Where the elements live. */
  public enum Storage {
    /** A Java primitive array: {@link #array()} from element {@link #arrayOffset()}. */
    ARRAY,
    /** A ByteBuffer: {@link #byteBuffer()}, exactly {@link #sizeBytes()} long. */
    NIO,
    /** Native memory the caller keeps alive: {@link #address()}. */
    ADDRESS
  }

  private final Storage storage;
  private final Object array;
  private final int arrayOffset;
  private final ByteBuffer nio;
  private final long address;
  private final long count;
  private final DataType dataType;

  private HostBuffer(
      Storage storage,
      Object array,
      int arrayOffset,
      ByteBuffer nio,
      long address,
      long count,
      DataType dataType) {
    this.storage = storage;
    this.array = array;
    this.arrayOffset = arrayOffset;
    this.nio = nio;
    this.address = address;
    this.count = count;
    this.dataType = dataType;
  }

  public static HostBuffer of(float[] a) {
    return of(a, 0, a.length);
  }

  public static HostBuffer of(float[] a, int offset, int count) {
    return ofArray(a, a.length, offset, count, DataType.FLOAT32);
  }

  public static HostBuffer of(double[] a) {
    return of(a, 0, a.length);
  }

  public static HostBuffer of(double[] a, int offset, int count) {
    return ofArray(a, a.length, offset, count, DataType.FLOAT64);
  }

  public static HostBuffer of(int[] a) {
    return of(a, 0, a.length);
  }

  public static HostBuffer of(int[] a, int offset, int count) {
    return ofArray(a, a.length, offset, count, DataType.INT32);
  }

  public static HostBuffer of(long[] a) {
    return of(a, 0, a.length);
  }

  public static HostBuffer of(long[] a, int offset, int count) {
    return ofArray(a, a.length, offset, count, DataType.INT64);
  }

  /** FLOAT16 or BFLOAT16 bit patterns held in a {@code short[]}. */
  public static HostBuffer of(short[] a, DataType type) {
    return of(a, 0, a.length, type);
  }

  public static HostBuffer of(short[] a, int offset, int count, DataType type) {
    requireType(type, "short[]", DataType.FLOAT16, DataType.BFLOAT16);
    return ofArray(a, a.length, offset, count, type);
  }

  /** INT8 or UINT8 values held in a {@code byte[]}. */
  public static HostBuffer of(byte[] a, DataType type) {
    return of(a, 0, a.length, type);
  }

  public static HostBuffer of(byte[] a, int offset, int count, DataType type) {
    requireType(type, "byte[]", DataType.INT8, DataType.UINT8);
    return ofArray(a, a.length, offset, count, type);
  }

  /**
   * The bytes between {@code buffer}'s position and limit, read as elements of {@code type}; the
   * remaining bytes must be a whole number of elements. Later changes to the buffer's position do
   * not affect this descriptor.
   */
  public static HostBuffer of(ByteBuffer buffer, DataType type) {
    if (type == null) {
      throw new IllegalArgumentException("dataType : null (expected: a DataType)");
    }
    int bytes = buffer.remaining();
    if (bytes % type.sizeBytes() != 0) {
      throw new IllegalArgumentException(
          "ByteBuffer has "
              + bytes
              + " bytes remaining, not a whole number of "
              + type
              + " elements ("
              + type.sizeBytes()
              + " bytes each)");
    }
    ByteBuffer view = buffer.slice().order(ByteOrder.nativeOrder());
    return new HostBuffer(Storage.NIO, null, 0, view, 0, bytes / type.sizeBytes(), type);
  }

  /**
   * {@code count} elements of native memory at {@code address}, which the caller keeps allocated
   * until the collective completes (an ND4J CPU array: {@code
   * array.data().addressPointer().address()}).
   */
  public static HostBuffer ofAddress(long address, long count, DataType type) {
    if (type == null) {
      throw new IllegalArgumentException("dataType : null (expected: a DataType)");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count : " + count + " (expected: >= 0)");
    }
    if (address == 0 && count > 0) {
      throw new IllegalArgumentException(
          "address : 0 for "
              + count
              + " elements (expected: the address of allocated native memory)");
    }
    return new HostBuffer(Storage.ADDRESS, null, 0, null, address, count, type);
  }

  private static HostBuffer ofArray(
      Object array, int length, int offset, int count, DataType type) {
    checkRange(offset, count, length);
    return new HostBuffer(Storage.ARRAY, array, offset, null, 0, count, type);
  }

  private static void requireType(DataType type, String holder, DataType a, DataType b) {
    if (type != a && type != b) {
      throw new IllegalArgumentException(
          "a " + holder + " holds " + a + " or " + b + ", not " + type);
    }
  }

  static void checkRange(long offset, long length, long capacity) {
    if (offset < 0 || length < 0 || offset > capacity - length) {
      throw new IndexOutOfBoundsException(
          "elements ["
              + offset
              + ", "
              + (offset + length)
              + ") are outside a buffer of "
              + capacity
              + " (expected: 0 <= offset <= offset + length <= "
              + capacity
              + ")");
    }
  }

  public Storage storage() {
    return storage;
  }

  /** The Java array behind an {@link Storage#ARRAY} buffer. */
  public Object array() {
    requireStorage(Storage.ARRAY);
    return array;
  }

  /** The index in {@link #array()} of this buffer's first element. */
  public int arrayOffset() {
    requireStorage(Storage.ARRAY);
    return arrayOffset;
  }

  /**
   * A fresh native-order view of an {@link Storage#NIO} buffer's bytes, position 0, limit {@link
   * #sizeBytes()}; callers may move its position freely.
   */
  public ByteBuffer byteBuffer() {
    requireStorage(Storage.NIO);
    return nio.duplicate().order(ByteOrder.nativeOrder());
  }

  /** The native address of an {@link Storage#ADDRESS} buffer's first element. */
  public long address() {
    requireStorage(Storage.ADDRESS);
    return address;
  }

  private void requireStorage(Storage wanted) {
    if (storage != wanted) {
      throw new IllegalStateException("this HostBuffer is " + storage + ", not " + wanted);
    }
  }

  /** Elements {@code [offset, offset + length)} of this buffer, over the same memory. */
  public HostBuffer slice(long offset, long length) {
    checkRange(offset, length, count);
    switch (storage) {
      case ARRAY:
        return new HostBuffer(
            storage, array, Math.toIntExact(arrayOffset + offset), null, 0, length, dataType);
      case NIO:
        int from = Math.toIntExact(dataType.bytesFor(offset));
        int bytes = Math.toIntExact(dataType.bytesFor(length));
        ByteBuffer part = nio.duplicate().position(from).limit(from + bytes).slice();
        return new HostBuffer(
            storage, null, 0, part.order(ByteOrder.nativeOrder()), 0, length, dataType);
      default:
        return new HostBuffer(
            storage, null, 0, null, address + dataType.bytesFor(offset), length, dataType);
    }
  }

  @Override
  public DataType dataType() {
    return dataType;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public String toString() {
    return "HostBuffer[" + storage + ", " + count + " " + dataType.ncclName() + "]";
  }
}
