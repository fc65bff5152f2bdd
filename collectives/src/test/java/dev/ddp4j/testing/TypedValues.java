package dev.ddp4j.testing;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.HalfFloats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

/**
 * Test data for reductions: random values every dtype holds exactly (halves of small integers for
 * floats, so sums and products of up to 8 ranks are exact in any order), buffers of every storage
 * holding them, and the sequential reference a reduction must equal.
 */
public final class TypedValues {

  private TypedValues() {}

  /** {@code count} random values exactly representable in {@code type}. */
  public static double[] random(DataType type, int count, Random random) {
    double[] v = new double[count];
    for (int i = 0; i < count; i++) {
      switch (type) {
        case UINT8:
          v[i] = random.nextInt(256);
          break;
        case INT8:
          v[i] = random.nextInt(256) - 128;
          break;
        case INT32:
        case INT64:
          v[i] = random.nextInt(201) - 100;
          break;
        default:
          v[i] = (random.nextInt(7) - 3) / 2.0; // -1.5 .. 1.5: 8-rank products stay exact
      }
    }
    return v;
  }

  /**
   * The value {@code op} over {@code values} must give: exact arithmetic (integers wrap as the type
   * does), AVG divided in the type's compute precision, rounded once to {@code type}.
   */
  public static double reference(DataType type, ReduceOp op, double[] values) {
    int n = values.length;
    if (!type.isFloatingPoint()) {
      long r = (long) values[0];
      for (int i = 1; i < n; i++) {
        long x = (long) values[i];
        switch (op) {
          case SUM:
          case AVG:
            r = wrap(type, r + x);
            break;
          case PRODUCT:
            r = wrap(type, r * x);
            break;
          case MIN:
            r = Math.min(r, x);
            break;
          default:
            r = Math.max(r, x);
        }
      }
      return op == ReduceOp.AVG ? wrap(type, r / n) : r;
    }
    double r = values[0];
    for (int i = 1; i < n; i++) {
      switch (op) {
        case SUM:
        case AVG:
          r += values[i];
          break;
        case PRODUCT:
          r *= values[i];
          break;
        case MIN:
          r = Math.min(r, values[i]);
          break;
        default:
          r = Math.max(r, values[i]);
      }
    }
    if (type == DataType.FLOAT64) {
      return op == ReduceOp.AVG ? r / n : r;
    }
    float f = (float) r;
    if (op == ReduceOp.AVG) {
      f = f / n;
    }
    return roundTo(type, f);
  }

  private static double roundTo(DataType type, float f) {
    switch (type) {
      case FLOAT16:
        return HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(f));
      case BFLOAT16:
        return HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(f));
      default:
        return f;
    }
  }

  private static long wrap(DataType type, long v) {
    switch (type) {
      case INT8:
        return (byte) v;
      case UINT8:
        return v & 0xff;
      case INT32:
        return (int) v;
      default:
        return v;
    }
  }

  /** A buffer of {@code storage} holding {@code values} as {@code type}. */
  public static HostBuffer buffer(DataType type, double[] values, HostBuffer.Storage storage) {
    int n = values.length;
    ByteBuffer bytes =
        ByteBuffer.allocateDirect(Math.max(1, n * type.sizeBytes())).order(ByteOrder.nativeOrder());
    for (int i = 0; i < n; i++) {
      put(type, bytes, i, values[i]);
    }
    bytes.limit(n * type.sizeBytes());
    switch (storage) {
      case NIO:
        return HostBuffer.of(bytes, type);
      case ADDRESS:
        HostBuffer direct = HostBuffer.of(bytes, type);
        Keep.alive(bytes);
        return HostBuffer.ofAddress(
            dev.ddp4j.collectives.reduce.UnsafeMemory.addressOf(direct.byteBuffer()), n, type);
      default:
        return arrayBuffer(type, bytes, n);
    }
  }

  private static HostBuffer arrayBuffer(DataType type, ByteBuffer bytes, int n) {
    switch (type) {
      case FLOAT32:
        float[] f = new float[n];
        bytes.asFloatBuffer().get(f);
        return HostBuffer.of(f);
      case FLOAT64:
        double[] d = new double[n];
        bytes.asDoubleBuffer().get(d);
        return HostBuffer.of(d);
      case INT32:
        int[] i = new int[n];
        bytes.asIntBuffer().get(i);
        return HostBuffer.of(i);
      case INT64:
        long[] l = new long[n];
        bytes.asLongBuffer().get(l);
        return HostBuffer.of(l);
      case FLOAT16:
      case BFLOAT16:
        short[] s = new short[n];
        bytes.asShortBuffer().get(s);
        return HostBuffer.of(s, type);
      default:
        byte[] b = new byte[n];
        bytes.get(b);
        return HostBuffer.of(b, type);
    }
  }

  private static void put(DataType type, ByteBuffer b, int i, double v) {
    switch (type) {
      case FLOAT32:
        b.putFloat(i * 4, (float) v);
        break;
      case FLOAT64:
        b.putDouble(i * 8, v);
        break;
      case INT32:
        b.putInt(i * 4, (int) v);
        break;
      case INT64:
        b.putLong(i * 8, (long) v);
        break;
      case FLOAT16:
        b.putShort(i * 2, HalfFloats.floatToFloat16((float) v));
        break;
      case BFLOAT16:
        b.putShort(i * 2, HalfFloats.floatToBfloat16((float) v));
        break;
      default:
        b.put(i, (byte) v);
    }
  }

  /** The values a buffer holds now, widened to double (UINT8 read unsigned). */
  public static double[] read(HostBuffer buffer) {
    DataType type = buffer.dataType();
    int n = Math.toIntExact(buffer.count());
    ByteBuffer copy = ByteBuffer.allocateDirect(Math.max(1, n * type.sizeBytes()));
    HostBuffer target =
        HostBuffer.of(copy.order(ByteOrder.nativeOrder()).limit(n * type.sizeBytes()), type);
    dev.ddp4j.collectives.reduce.HostMemory.of(target)
        .copyFrom(dev.ddp4j.collectives.reduce.HostMemory.of(buffer));
    copy.order(ByteOrder.nativeOrder());
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      switch (type) {
        case FLOAT32:
          v[i] = copy.getFloat(i * 4);
          break;
        case FLOAT64:
          v[i] = copy.getDouble(i * 8);
          break;
        case INT32:
          v[i] = copy.getInt(i * 4);
          break;
        case INT64:
          v[i] = copy.getLong(i * 8);
          break;
        case FLOAT16:
          v[i] = HalfFloats.float16ToFloat(copy.getShort(i * 2));
          break;
        case BFLOAT16:
          v[i] = HalfFloats.bfloat16ToFloat(copy.getShort(i * 2));
          break;
        case UINT8:
          v[i] = copy.get(i) & 0xff;
          break;
        default:
          v[i] = copy.get(i);
      }
    }
    return v;
  }

  /** Holds direct buffers whose address a test passed on, for the life of the JVM. */
  private static final class Keep {
    private static final java.util.List<ByteBuffer> ALIVE =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    static void alive(ByteBuffer b) {
      ALIVE.add(b);
    }
  }
}
