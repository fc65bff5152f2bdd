package dev.ddp4j;

import java.util.Locale;

/**
 * The element types a collective moves and reduces, with their size in bytes.
 *
 * <p>The names after each constant are the ones NCCL uses, so a user reading NCCL advice finds the
 * same type here. FLOAT16 is IEEE 754 binary16; BFLOAT16 is the upper half of a binary32.
 */
public enum DataType {
  FLOAT32(4, true, "float32"),
  FLOAT64(8, true, "float64"),
  FLOAT16(2, true, "float16"),
  BFLOAT16(2, true, "bfloat16"),
  INT32(4, false, "int32"),
  INT64(8, false, "int64"),
  INT8(1, false, "int8"),
  UINT8(1, false, "uint8");

  private final int sizeBytes;
  private final boolean floatingPoint;
  private final String ncclName;

  DataType(int sizeBytes, boolean floatingPoint, String ncclName) {
    this.sizeBytes = sizeBytes;
    this.floatingPoint = floatingPoint;
    this.ncclName = ncclName;
  }

  /** Bytes per element: 1, 2, 4 or 8. */
  public int sizeBytes() {
    return sizeBytes;
  }

  /** True for FLOAT32, FLOAT64, FLOAT16 and BFLOAT16. */
  public boolean isFloatingPoint() {
    return floatingPoint;
  }

  /** The name NCCL and nccl-tests print for this type, e.g. {@code float32}. */
  public String ncclName() {
    return ncclName;
  }

  /**
   * The number of bytes {@code count} elements take.
   *
   * @throws ArithmeticException if the product overflows a long
   */
  public long bytesFor(long count) {
    if (count < 0) {
      throw new IllegalArgumentException("count : " + count + " (expected: >= 0)");
    }
    return Math.multiplyExact(count, (long) sizeBytes);
  }

  /**
   * Parses a type as users write it: the enum name or NCCL's name ({@code float}, {@code half},
   * {@code bf16}, {@code double}, {@code int}, {@code long}, {@code char} ...), case-insensitively.
   *
   * @throws IllegalArgumentException naming the value and the accepted forms
   */
  public static DataType parse(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    switch (n) {
      case "float32":
      case "float":
      case "fp32":
      case "f32":
        return FLOAT32;
      case "float64":
      case "double":
      case "fp64":
      case "f64":
        return FLOAT64;
      case "float16":
      case "half":
      case "fp16":
      case "f16":
        return FLOAT16;
      case "bfloat16":
      case "bf16":
        return BFLOAT16;
      case "int32":
      case "int":
      case "i32":
        return INT32;
      case "int64":
      case "long":
      case "i64":
        return INT64;
      case "int8":
      case "char":
      case "i8":
        return INT8;
      case "uint8":
      case "u8":
        return UINT8;
      default:
        throw new IllegalArgumentException(
            "data type '"
                + name
                + "' is not known (expected one of: float32, float64, float16, bfloat16, int32, int64,"
                + " int8, uint8)");
    }
  }
}
