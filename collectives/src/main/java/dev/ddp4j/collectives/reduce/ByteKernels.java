package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.ReduceOp;

/** INT8 and UINT8 kernels of {@link Reductions}; sums and products wrap modulo 256. */
final class ByteKernels {

  private ByteKernels() {}

  static void reduce(
      ReduceOp op,
      boolean unsigned,
      Object db,
      long dstOffset,
      Object sb,
      long srcOffset,
      long count) {
    int mask = unsigned ? 0xff : -1;
    for (long i = 0; i < count; i++) {
      long d = dstOffset + i;
      int a = UNSAFE.getByte(db, d) & mask;
      int b = UNSAFE.getByte(sb, srcOffset + i) & mask;
      int r;
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
          throw new IllegalArgumentException("no byte kernel for " + op);
      }
      UNSAFE.putByte(db, d, (byte) r);
    }
  }
}
