package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import java.nio.ByteBuffer;

/**
 * Random test values by position, so every rank can recompute every other rank's input for a
 * float64 reference without exchanging data: value(seed, rank, i) comes from a SplitMix64 hash.
 * Values are exactly representable in their dtype and small enough that integer results neither
 * overflow nor, for PRODUCT, reach 0 or infinity.
 */
final class TestValues {

  private TestValues() {}

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** The input of {@code rank} at element {@code i}, as a double. */
  static double value(long seed, int rank, long i, DataType t, ReduceOp op) {
    long h = mix(seed * 0x9E3779B97F4A7C15L + rank * 0xD1B54A32D192ED03L + i);
    int k = (int) ((h >>> 33) % 257) - 128; // -128 .. 128
    boolean prod = op == ReduceOp.PRODUCT;
    switch (t) {
      case FLOAT32:
      case FLOAT64:
        double u = ((h >>> 11) * 0x1.0p-53) * 2 - 1; // [-1, 1)
        double v = prod ? 0.5 + (u + 1) / 2 : u;
        return t == DataType.FLOAT32 ? (float) v : v;
      case FLOAT16:
        return prod ? 1 + k / 512.0 : k / 256.0;
      case BFLOAT16:
        return prod ? 1 + (k / 2) / 128.0 : (k / 2) / 64.0;
      // Integer products: ranks past the first two get small factors, and ranks from 8 on
      // factors of -1, 0 or 1, so that the product of up to 32 ranks neither overflows the type nor
      // leaves float64's exact range (the reference). Sums: ranks from 8 on add less, so that 32
      // int8 (8 x 10 + 24 x 1) and uint8 (8 x 20 + 24 x 3) terms stay in range. Ranks 0-7 keep
      // the values the 2-8 rank runs were checked with.
      case INT8:
        return prod ? k % (rank < 2 ? 4 : 2) : k % (rank < 8 ? 11 : 2);
      case UINT8:
        return prod ? Math.abs(k) % (rank < 2 ? 4 : 2) : Math.abs(k) % (rank < 8 ? 21 : 4);
      case INT32:
        return prod ? k % (rank < 2 ? 40 : rank < 8 ? 4 : 2) : k * 7;
      case INT64:
        return prod ? (rank < 2 ? k * 1000L : k % (rank < 8 ? 8 : 2)) : k * 1_000_003L;
      default:
        throw new IllegalArgumentException(t.toString());
    }
  }

  /** Writes {@code v} (exactly representable in {@code t}) at element {@code i}. */
  static void put(ByteBuffer b, long i, DataType t, double v) {
    int at = Math.toIntExact(i * t.sizeBytes());
    switch (t) {
      case FLOAT32 -> b.putFloat(at, (float) v);
      case FLOAT64 -> b.putDouble(at, v);
      case FLOAT16 -> b.putShort(at, halfBits((float) v));
      case BFLOAT16 -> b.putShort(at, (short) (Float.floatToRawIntBits((float) v) >>> 16));
      case INT8, UINT8 -> b.put(at, (byte) (long) v);
      case INT32 -> b.putInt(at, (int) (long) v);
      case INT64 -> b.putLong(at, (long) v);
    }
  }

  /** Reads element {@code i} as a double. */
  static double get(ByteBuffer b, long i, DataType t) {
    int at = Math.toIntExact(i * t.sizeBytes());
    return switch (t) {
      case FLOAT32 -> b.getFloat(at);
      case FLOAT64 -> b.getDouble(at);
      case FLOAT16 -> halfToFloat(b.getShort(at));
      case BFLOAT16 -> Float.intBitsToFloat((b.getShort(at) & 0xffff) << 16);
      case INT8 -> b.get(at);
      case UINT8 -> b.get(at) & 0xff;
      case INT32 -> b.getInt(at);
      case INT64 -> b.getLong(at);
    };
  }

  /** fp16 bits of a float that is exactly representable as a normal fp16 number or zero. */
  static short halfBits(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    if ((bits & 0x7fffffff) == 0) {
      return (short) sign;
    }
    int exp = ((bits >>> 23) & 0xff) - 127 + 15;
    int mant = (bits >>> 13) & 0x3ff;
    if (exp <= 0 || exp >= 31 || (bits & 0x1fff) != 0) {
      throw new IllegalArgumentException(f + " is not a normal fp16 value");
    }
    return (short) (sign | (exp << 10) | mant);
  }

  static float halfToFloat(short h) {
    int sign = (h & 0x8000) << 16;
    int exp = (h >>> 10) & 0x1f;
    int mant = h & 0x3ff;
    if (exp == 0) {
      return Float.intBitsToFloat(sign) + (sign != 0 ? -1 : 1) * mant * 0x1.0p-24f;
    }
    if (exp == 31) {
      return mant == 0 ? Float.intBitsToFloat(sign | 0x7f800000) : Float.NaN;
    }
    return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  }

  /**
   * The reference result at element {@code i} in float64, for integer types with the backend's
   * semantics (AVG truncates toward zero).
   */
  static double reference(long seed, int ranks, long i, DataType t, ReduceOp op) {
    double acc = value(seed, 0, i, t, op);
    for (int r = 1; r < ranks; r++) {
      double v = value(seed, r, i, t, op);
      acc =
          switch (op) {
            case SUM, AVG -> acc + v;
            case PRODUCT -> acc * v;
            case MIN -> Math.min(acc, v);
            case MAX -> Math.max(acc, v);
          };
    }
    if (op == ReduceOp.AVG) {
      acc = t.isFloatingPoint() ? acc / ranks : (double) ((long) acc / ranks);
    }
    return acc;
  }

  /** How far a result may be from the float64 reference: rounding of the dtype, scaled. */
  static double tolerance(long seed, int ranks, long i, DataType t, ReduceOp op, double ref) {
    double eps =
        switch (t) {
          case FLOAT32 -> 0x1.0p-23;
          case FLOAT64 -> 0x1.0p-51;
          case FLOAT16 -> 0x1.0p-10;
          case BFLOAT16 -> 0x1.0p-7;
          default -> 0;
        };
    if (eps == 0 || op == ReduceOp.MIN || op == ReduceOp.MAX) {
      return 0;
    }
    if (op == ReduceOp.PRODUCT) {
      return eps * ranks * Math.abs(ref);
    }
    double mag = 0;
    for (int r = 0; r < ranks; r++) {
      mag += Math.abs(value(seed, r, i, t, op));
    }
    return eps * ranks * (op == ReduceOp.AVG ? mag / ranks : mag);
  }
}
