package dev.ddp4j.collectives.reduce;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import sun.misc.Unsafe;

/**
 * The one place ddp4j touches {@code sun.misc.Unsafe}: typed loads and stores at (base object,
 * offset) pairs, which address Java arrays (base = the array), direct memory and mapped files (base
 * = null, offset = the address) with one code path.
 *
 * <p>Why not Agrona's UnsafeBuffer: Agrona 2.x reaches {@code jdk.internal.misc.Unsafe}, which
 * needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} in every worker JVM; and
 * neither Agrona nor Netty buffers address {@code float[]} or {@code long[]} directly. {@code
 * sun.misc.Unsafe} lives in {@code jdk.unsupported}, which Java 17 exports to everyone.
 */
public final class UnsafeMemory {

  /** The Unsafe instance, for the hot loops of this package and the transports. */
  public static final Unsafe UNSAFE = load();

  public static final long BYTE_BASE = UNSAFE.arrayBaseOffset(byte[].class);
  public static final long SHORT_BASE = UNSAFE.arrayBaseOffset(short[].class);
  public static final long INT_BASE = UNSAFE.arrayBaseOffset(int[].class);
  public static final long LONG_BASE = UNSAFE.arrayBaseOffset(long[].class);
  public static final long FLOAT_BASE = UNSAFE.arrayBaseOffset(float[].class);
  public static final long DOUBLE_BASE = UNSAFE.arrayBaseOffset(double[].class);

  private static final long BUFFER_ADDRESS = fieldOffset(Buffer.class, "address");

  private UnsafeMemory() {}

  private static Unsafe load() {
    try {
      Field f = Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (Unsafe) f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(
          "sun.misc.Unsafe is not reachable (expected: module jdk.unsupported, present in every"
              + " Java 17 runtime): "
              + e);
    }
  }

  @SuppressWarnings("deprecation") // objectFieldOffset is the only way to read Buffer.address
  private static long fieldOffset(Class<?> type, String name) {
    try {
      return UNSAFE.objectFieldOffset(type.getDeclaredField(name));
    } catch (NoSuchFieldException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The native address of a direct (or mapped) ByteBuffer's element 0. */
  public static long addressOf(ByteBuffer direct) {
    if (!direct.isDirect()) {
      throw new IllegalArgumentException("a heap ByteBuffer has no native address: " + direct);
    }
    return UNSAFE.getLong(direct, BUFFER_ADDRESS);
  }

  /**
   * Copies {@code bytes} bytes; either side may be an array (base non-null) or native memory (base
   * null). Unsafe copies large runs in safepoint-polled pieces, so arrays may move in between.
   */
  public static void copy(
      Object srcBase, long srcOffset, Object dstBase, long dstOffset, long bytes) {
    UNSAFE.copyMemory(srcBase, srcOffset, dstBase, dstOffset, bytes);
  }

  /** Unmaps a mapped or direct buffer now rather than at garbage collection. */
  public static void release(ByteBuffer direct) {
    UNSAFE.invokeCleaner(direct);
  }
}
