package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.ReduceOp;

/** FLOAT32 kernels of {@link Reductions}: one loop per op, in blocks of at most {@link #BLOCK}. */
final class FloatKernels {

  /** Elements per inner loop: int-counted loops are the ones C2 unrolls and vectorises. */
  static final int BLOCK = 1 << 20;

  private FloatKernels() {}

  static void reduce(
      ReduceOp op, Object dstBase, long dstOffset, Object srcBase, long srcOffset, long count) {
    if (op == ReduceOp.SUM || op == ReduceOp.AVG) {
      if (dstBase instanceof float[] && srcBase instanceof float[]) {
        int d = (int) ((dstOffset - UnsafeMemory.FLOAT_BASE) >> 2);
        int s = (int) ((srcOffset - UnsafeMemory.FLOAT_BASE) >> 2);
        sumArrays((float[]) dstBase, d, (float[]) srcBase, s, Math.toIntExact(count));
        return;
      }
    }
    for (long done = 0; done < count; done += BLOCK) {
      int n = (int) Math.min(BLOCK, count - done);
      long d = dstOffset + (done << 2);
      long s = srcOffset + (done << 2);
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
          throw new IllegalArgumentException("no FLOAT32 kernel for " + op);
      }
    }
  }

  /** FLOAT32 SUM between two float arrays: a plain array loop, which C2 vectorises. */
  private static void sumArrays(float[] dst, int d, float[] src, int s, int n) {
    for (int i = 0; i < n; i++) {
      dst[d + i] += src[s + i];
    }
  }

  private static void sum(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 2;
      float a = UNSAFE.getFloat(db, d + o);
      float b = UNSAFE.getFloat(sb, s + o);
      UNSAFE.putFloat(db, d + o, a + b);
    }
  }

  private static void product(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 2;
      float a = UNSAFE.getFloat(db, d + o);
      float b = UNSAFE.getFloat(sb, s + o);
      UNSAFE.putFloat(db, d + o, a * b);
    }
  }

  private static void min(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 2;
      float a = UNSAFE.getFloat(db, d + o);
      float b = UNSAFE.getFloat(sb, s + o);
      UNSAFE.putFloat(db, d + o, Math.min(a, b));
    }
  }

  private static void max(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << 2;
      float a = UNSAFE.getFloat(db, d + o);
      float b = UNSAFE.getFloat(sb, s + o);
      UNSAFE.putFloat(db, d + o, Math.max(a, b));
    }
  }
}
