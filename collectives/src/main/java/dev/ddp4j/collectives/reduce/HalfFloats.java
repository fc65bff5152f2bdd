package dev.ddp4j.collectives.reduce;

/**
 * Conversions between fp32 and the two 16-bit float formats, rounding to nearest, ties to even:
 * IEEE 754 binary16 (FLOAT16) and bfloat16 (the upper half of a binary32). Java 17 has neither
 * (Float.floatToFloat16 arrived in Java 20).
 */
public final class HalfFloats {

  private HalfFloats() {}

  /** The fp32 value of binary16 bits {@code h}. */
  public static float float16ToFloat(short h) {
    int bits = h & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int exponent = (bits >>> 10) & 0x1f;
    int mantissa = bits & 0x3ff;
    if (exponent == 0) {
      // zero or subnormal: mantissa x 2^-24, exact in fp32
      float v = mantissa * 0x1p-24f;
      return sign != 0 ? -v : v;
    }
    if (exponent == 31) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
    }
    return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }

  /** The binary16 bits nearest to {@code f} (overflow to infinity, NaN stays NaN). */
  public static short floatToFloat16(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    int abs = bits & 0x7fffffff;
    if (abs >= 0x7f800000) {
      int nan = abs > 0x7f800000 ? 0x200 | ((abs >>> 13) & 0x3ff) : 0;
      return (short) (sign | 0x7c00 | nan);
    }
    if (abs >= 0x477ff000) { // >= 65520 rounds past the largest finite half, 65504
      return (short) (sign | 0x7c00);
    }
    if (abs < 0x38800000) { // below 2^-14: a subnormal half, mantissa = round(|f| x 2^24)
      float v = Float.intBitsToFloat(abs);
      return (short) (sign | (int) Math.rint(v * 0x1p24));
    }
    int h = (((abs >>> 23) - 112) << 10) | ((abs >>> 13) & 0x3ff);
    int rest = abs & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1) != 0)) {
      h++; // a carry into the exponent is the right rounding
    }
    return (short) (sign | h);
  }

  /** The fp32 value of bfloat16 bits {@code b}. */
  public static float bfloat16ToFloat(short b) {
    return Float.intBitsToFloat((b & 0xffff) << 16);
  }

  /** The bfloat16 bits nearest to {@code f}. */
  public static short floatToBfloat16(float f) {
    int bits = Float.floatToRawIntBits(f);
    if ((bits & 0x7fffffff) > 0x7f800000) {
      return (short) ((bits >>> 16) | 0x40); // keep NaN a (quiet) NaN
    }
    return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
  }
}
