package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.ReduceOp;

/** FLOAT16 and BFLOAT16 kernels of {@link Reductions}: widen to fp32, combine, round back. */
final class HalfKernels {

  private HalfKernels() {}

  static void reduce(
      ReduceOp op,
      boolean bfloat,
      Object db,
      long dstOffset,
      Object sb,
      long srcOffset,
      long count) {
    for (long i = 0; i < count; i++) {
      long d = dstOffset + (i << 1);
      float a = widen(bfloat, UNSAFE.getShort(db, d));
      float b = widen(bfloat, UNSAFE.getShort(sb, srcOffset + (i << 1)));
      float r;
      switch (op) {
        case SUM:
        case AVG:
          r = a + b;
          break;
        case PRODUCT:
          r = a * b;
          break;
        case MIN:
          r = Math.min(a, b);
          break;
        case MAX:
          r = Math.max(a, b);
          break;
        default:
          throw new IllegalArgumentException("no half-float kernel for " + op);
      }
      UNSAFE.putShort(db, d, bfloat ? HalfFloats.floatToBfloat16(r) : HalfFloats.floatToFloat16(r));
    }
  }

  private static float widen(boolean bfloat, short h) {
    return bfloat ? HalfFloats.bfloat16ToFloat(h) : HalfFloats.float16ToFloat(h);
  }
}
