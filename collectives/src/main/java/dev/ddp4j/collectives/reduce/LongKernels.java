package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.ReduceOp;

/** INT64 kernels of {@link Reductions}: one loop per op, in blocks of at most {@link #BLOCK}. */
final class LongKernels {

  /** Elements per inner loop: int-counted loops are the ones C2 unrolls and vectorises. */
  static final int BLOCK = 1 << 20;

  private LongKernels() {}

  static void reduce(
      ReduceOp op, Object dstBase, long dstOffset, Object srcBase, long srcOffset, long count) {
    for (long done = 0; done < count; done += BLOCK) {
      int n = (int) Math.min(BLOCK, count - done);
      long d = dstOffset + (done << 3);
      long s = srcOffset + (done << 3);
      switch (op) {
        case SUM:
        case AVG:
          sum(dstBase, d, srcBase, s, n);
          break;
        case PRODUCT:
          product(dstBase, d, srcBase, s, n);
          break;
        case MIN:
          min(dstBase, d, srcBase, s, n);
          break;
        case MAX:
          max(dstBase, d, srcBase, s, n);
          break;
        default:
          throw new IllegalArgumentException("no INT64 kernel for " + op);
      }
    }
  }

  private static void sum(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 3;
      long a = UNSAFE.getLong(db, d + o);
      long b = UNSAFE.getLong(sb, s + o);
      UNSAFE.putLong(db, d + o, a + b);
    }
  }

  private static void product(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 3;
      long a = UNSAFE.getLong(db, d + o);
      long b = UNSAFE.getLong(sb, s + o);
      UNSAFE.putLong(db, d + o, a * b);
    }
  }

  private static void min(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 3;
      long a = UNSAFE.getLong(db, d + o);
      long b = UNSAFE.getLong(sb, s + o);
      UNSAFE.putLong(db, d + o, Math.min(a, b));
    }
  }

  private static void max(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 3;
      long a = UNSAFE.getLong(db, d + o);
      long b = UNSAFE.getLong(sb, s + o);
      UNSAFE.putLong(db, d + o, Math.max(a, b));
    }
  }
}
