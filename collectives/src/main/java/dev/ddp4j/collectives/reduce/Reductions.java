package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.spi.Settings;

/**
 * Element-wise reduction kernels, {@code dst[i] = dst[i] op src[i]}, for every {@link DataType} and
 * {@link ReduceOp}, over Unsafe (base, offset) addresses (see {@link HostMemory}). {@link
 * ReduceOp#AVG} reduces as SUM; the caller divides once at the end with {@link #divide}. FLOAT16
 * and BFLOAT16 are computed in fp32 and rounded per call (the cpu executor avoids that rounding by
 * reducing half types in an fp32 working buffer).
 *
 * <p>Loops take their bounds and bases in locals and contain one operation each, so C2 can unroll
 * and vectorise them; FLOAT32 SUM between two float arrays gets a plain array loop. C2 does not
 * vectorise loops over native memory, so FLOAT32 / FLOAT64 there go to {@link VectorKernels} when
 * the Vector API is present ({@link #VECTORISED}).
 */
public final class Reductions {

  /**
   * True when FLOAT32 / FLOAT64 over native memory use {@link VectorKernels}: the JVM was started
   * with {@code --add-modules jdk.incubator.vector} (the ddp4j launcher passes it to its workers),
   * it is Java 17-19 (whose {@code fromByteBuffer} the kernels use; Java 20 replaced it) and {@code
   * DDP4J_CPU_VECTOR} is not {@code 0}.
   */
  public static final boolean VECTORISED =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
          && Runtime.version().feature() < 20
          && !Settings.process().text("DDP4J_CPU_VECTOR", "1").equals("0");

  private static final int MAX_VECTOR_CALL_BYTES = 1 << 30;
  private static final java.util.concurrent.atomic.AtomicBoolean WARMING =
      new java.util.concurrent.atomic.AtomicBoolean();

  private Reductions() {}

  /** {@code dst[i] = dst[i] op src[i]} for {@code count} elements of {@code type}. */
  public static void reduce(
      DataType type,
      ReduceOp op,
      Object dstBase,
      long dstOffset,
      Object srcBase,
      long srcOffset,
      long count) {
    if (vectorCall(type, op, dstBase, srcBase, count)) {
      VectorKernels.reduce(type, op, dstOffset, srcOffset, 0, (int) count);
      return;
    }
    scalar(type, op, dstBase, dstOffset, srcBase, srcOffset, count);
  }

  /**
   * {@code dst[i] = dst[i] op src[i]}, then {@code out[i] = dst[i]}: a received piece reduced into
   * the working buffer and forwarded from cache in one pass ({@code src} and {@code out} are native
   * addresses, such as shared-memory slots).
   */
  public static void reduceAndCopy(
      DataType type,
      ReduceOp op,
      Object dstBase,
      long dstOffset,
      long srcAddress,
      long outAddress,
      long count) {
    if (vectorCall(type, op, dstBase, null, count)) {
      VectorKernels.reduce(type, op, dstOffset, srcAddress, outAddress, (int) count);
      return;
    }
    scalar(type, op, dstBase, dstOffset, null, srcAddress, count);
    UnsafeMemory.copy(dstBase, dstOffset, null, outAddress, count * type.sizeBytes());
  }

  /**
   * Compiles the vector kernels ahead of the first large collective, once per JVM, on a daemon
   * thread: until C2 has compiled them, Vector API code runs orders of magnitude slower than the
   * scalar loops (it allocates a box per vector), and a collective's first pieces are too few to
   * get it compiled quickly. About 100 ms of one core.
   */
  public static void warmUpInBackground() {
    if (!VECTORISED || WARMING.getAndSet(true)) {
      return;
    }
    Thread t = new Thread(Reductions::warmUp, "ddp4j-vector-warmup");
    t.setDaemon(true);
    t.start();
  }

  private static void warmUp() {
    int count = 4096;
    long bytes = count * 8L;
    long a = UnsafeMemory.UNSAFE.allocateMemory(bytes);
    long b = UnsafeMemory.UNSAFE.allocateMemory(bytes);
    long c = UnsafeMemory.UNSAFE.allocateMemory(bytes);
    try {
      for (long m : new long[] {a, b, c}) {
        UnsafeMemory.UNSAFE.setMemory(m, bytes, (byte) 0);
      }
      long until = System.nanoTime() + 300_000_000L;
      for (int i = 0; i < 6000 && System.nanoTime() - until < 0; i++) {
        VectorKernels.reduce(DataType.FLOAT32, ReduceOp.SUM, a, b, 0, count);
        VectorKernels.reduce(DataType.FLOAT32, ReduceOp.SUM, a, b, c, count);
        VectorKernels.reduce(DataType.FLOAT64, ReduceOp.SUM, a, b, 0, count / 2);
      }
    } finally {
      UnsafeMemory.UNSAFE.freeMemory(a);
      UnsafeMemory.UNSAFE.freeMemory(b);
      UnsafeMemory.UNSAFE.freeMemory(c);
    }
  }

  private static boolean vectorCall(
      DataType type, ReduceOp op, Object dstBase, Object srcBase, long count) {
    return VECTORISED
        && dstBase == null
        && srcBase == null
        && count * type.sizeBytes() <= MAX_VECTOR_CALL_BYTES
        && VectorKernels.covers(type, op);
  }

  private static void scalar(
      DataType type,
      ReduceOp op,
      Object dstBase,
      long dstOffset,
      Object srcBase,
      long srcOffset,
      long count) {
    switch (type) {
      case FLOAT32:
        FloatKernels.reduce(op, dstBase, dstOffset, srcBase, srcOffset, count);
        break;
      case FLOAT64:
        DoubleKernels.reduce(op, dstBase, dstOffset, srcBase, srcOffset, count);
        break;
      case INT32:
        IntKernels.reduce(op, dstBase, dstOffset, srcBase, srcOffset, count);
        break;
      case INT64:
        LongKernels.reduce(op, dstBase, dstOffset, srcBase, srcOffset, count);
        break;
      case INT8:
      case UINT8:
        ByteKernels.reduce(
            op, type == DataType.UINT8, dstBase, dstOffset, srcBase, srcOffset, count);
        break;
      case FLOAT16:
      case BFLOAT16:
        HalfKernels.reduce(
            op, type == DataType.BFLOAT16, dstBase, dstOffset, srcBase, srcOffset, count);
        break;
      default:
        throw new IllegalArgumentException("no reduction for " + type);
    }
  }

  /**
   * Divides {@code count} elements by {@code divisor} in place (the end of an AVG); integers
   * truncate toward zero, half floats divide in fp32 and round once.
   */
  public static void divide(DataType type, Object base, long offset, long count, int divisor) {
    switch (type) {
      case FLOAT32:
        for (long i = 0; i < count; i++) {
          long a = offset + (i << 2);
          UNSAFE.putFloat(base, a, UNSAFE.getFloat(base, a) / divisor);
        }
        break;
      case FLOAT64:
        for (long i = 0; i < count; i++) {
          long a = offset + (i << 3);
          UNSAFE.putDouble(base, a, UNSAFE.getDouble(base, a) / divisor);
        }
        break;
      case INT32:
        for (long i = 0; i < count; i++) {
          long a = offset + (i << 2);
          UNSAFE.putInt(base, a, UNSAFE.getInt(base, a) / divisor);
        }
        break;
      case INT64:
        for (long i = 0; i < count; i++) {
          long a = offset + (i << 3);
          UNSAFE.putLong(base, a, UNSAFE.getLong(base, a) / divisor);
        }
        break;
      case INT8:
        for (long i = 0; i < count; i++) {
          UNSAFE.putByte(base, offset + i, (byte) (UNSAFE.getByte(base, offset + i) / divisor));
        }
        break;
      case UINT8:
        for (long i = 0; i < count; i++) {
          int v = UNSAFE.getByte(base, offset + i) & 0xff;
          UNSAFE.putByte(base, offset + i, (byte) (v / divisor));
        }
        break;
      case FLOAT16:
      case BFLOAT16:
        boolean bfloat = type == DataType.BFLOAT16;
        for (long i = 0; i < count; i++) {
          long a = offset + (i << 1);
          short h = UNSAFE.getShort(base, a);
          float v =
              (bfloat ? HalfFloats.bfloat16ToFloat(h) : HalfFloats.float16ToFloat(h)) / divisor;
          UNSAFE.putShort(
              base, a, bfloat ? HalfFloats.floatToBfloat16(v) : HalfFloats.floatToFloat16(v));
        }
        break;
      default:
        throw new IllegalArgumentException("no division for " + type);
    }
  }

  /** Widens {@code count} FLOAT16 or BFLOAT16 elements into fp32 at {@code dst}. */
  public static void halfToFloat(
      boolean bfloat, Object srcBase, long srcOffset, Object dstBase, long dstOffset, long count) {
    for (long i = 0; i < count; i++) {
      short h = UNSAFE.getShort(srcBase, srcOffset + (i << 1));
      float f = bfloat ? HalfFloats.bfloat16ToFloat(h) : HalfFloats.float16ToFloat(h);
      UNSAFE.putFloat(dstBase, dstOffset + (i << 2), f);
    }
  }

  /** Rounds {@code count} fp32 elements to FLOAT16 or BFLOAT16 at {@code dst}. */
  public static void floatToHalf(
      boolean bfloat, Object srcBase, long srcOffset, Object dstBase, long dstOffset, long count) {
    for (long i = 0; i < count; i++) {
      float f = UNSAFE.getFloat(srcBase, srcOffset + (i << 2));
      short h = bfloat ? HalfFloats.floatToBfloat16(f) : HalfFloats.floatToFloat16(f);
      UNSAFE.putShort(dstBase, dstOffset + (i << 1), h);
    }
  }
}
