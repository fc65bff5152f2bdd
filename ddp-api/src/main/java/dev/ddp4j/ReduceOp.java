package dev.ddp4j;

/**
 * How a reducing collective combines the ranks' values, element by element.
 *
 * <p>Every op is defined for every {@link DataType}. FLOAT16 and BFLOAT16 are reduced in fp32 and
 * rounded once at the end. {@link #AVG} is the sum divided by the number of ranks; for integer
 * types that division truncates toward zero.
 */
public enum ReduceOp {
  SUM,
  AVG,
  PRODUCT,
  MIN,
  MAX;

  /**
   * Parses a name as users write it ({@code sum}, {@code avg}, {@code prod}, {@code product},
   * {@code min}, {@code max}), case-insensitively.
   *
   * @throws IllegalArgumentException naming the value and the accepted forms
   */
  public static ReduceOp parse(String name) {
    String n = name == null ? "" : name.trim().toUpperCase(java.util.Locale.ROOT);
    switch (n) {
      case "SUM":
        return SUM;
      case "AVG":
      case "MEAN":
        return AVG;
      case "PROD":
      case "PRODUCT":
        return PRODUCT;
      case "MIN":
        return MIN;
      case "MAX":
        return MAX;
      default:
        throw new IllegalArgumentException(
            "reduce op '" + name + "' is not known (expected: sum, avg, prod, min, max)");
    }
  }
}
