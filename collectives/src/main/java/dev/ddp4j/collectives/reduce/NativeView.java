package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A direct ByteBuffer that can be pointed at any native address, so that the Vector API's {@code
 * fromByteBuffer} / {@code intoByteBuffer} (Java 17 has no loads from raw addresses) reach shared
 * memory slots and native tensors without a ByteBuffer object per piece. It is a duplicate of a
 * small direct buffer (so no cleaner frees anything through it) whose address field is rewritten
 * and whose limit is 2^31-1: the caller keeps every access inside the memory it points at.
 */
final class NativeView {

  private static final long ADDRESS = fieldOffset("address");
  private static final long CAPACITY = fieldOffset("capacity");
  private static final long LIMIT = fieldOffset("limit");
  private static final ByteBuffer ANCHOR = ByteBuffer.allocateDirect(64);

  private NativeView() {}

  @SuppressWarnings("deprecation") // objectFieldOffset is the only way to reach Buffer's fields
  private static long fieldOffset(String name) {
    try {
      return UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField(name));
    } catch (NoSuchFieldException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** A new view, pointing nowhere yet. */
  static ByteBuffer create() {
    ByteBuffer view = ANCHOR.duplicate().order(ByteOrder.nativeOrder());
    UNSAFE.putInt(view, CAPACITY, Integer.MAX_VALUE);
    UNSAFE.putInt(view, LIMIT, Integer.MAX_VALUE);
    return view;
  }

  static void point(ByteBuffer view, long address) {
    UNSAFE.putLong(view, ADDRESS, address);
  }

  static long address(ByteBuffer view) {
    return UNSAFE.getLong(view, ADDRESS);
  }
}
