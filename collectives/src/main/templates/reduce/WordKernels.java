package dev.ddp4j.collectives.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.ReduceOp;

// Generated at build time (collectives/pom.xml, generate-sources) from the template
// collectives/src/main/templates/reduce/WordKernels.java and kernels-*.properties, once each for
// FLOAT64, INT32 and INT64: a class per type keeps each loop's profile its own, which C2 needs to
// unroll and vectorise it, and the template keeps the three one text (bench/reduce-kernels.md has
// the JMH numbers of one generic class). Edit the template, not the generated files.

/** %TYPE% kernels of {@link Reductions}: one loop per op, in blocks of at most {@link #BLOCK}. */
final class %CLASS% {

  /** Elements per inner loop: int-counted loops are the ones C2 unrolls and vectorises. */
  static final int BLOCK = 1 << 20;

  private %CLASS%() {}

  static void reduce(
      ReduceOp op, Object dstBase, long dstOffset, Object srcBase, long srcOffset, long count) {
    for (long done = 0; done < count; done += BLOCK) {
      int n = (int) Math.min(BLOCK, count - done);
      long d = dstOffset + (done << %SHIFT%);
      long s = srcOffset + (done << %SHIFT%);
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
          throw new IllegalArgumentException("no %TYPE% kernel for " + op);
      }
    }
  }

  private static void sum(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << %SHIFT%;
      %PRIM% a = UNSAFE.get%ACCESS%(db, d + o);
      %PRIM% b = UNSAFE.get%ACCESS%(sb, s + o);
      UNSAFE.put%ACCESS%(db, d + o, a + b);
    }
  }

  private static void product(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << %SHIFT%;
      %PRIM% a = UNSAFE.get%ACCESS%(db, d + o);
      %PRIM% b = UNSAFE.get%ACCESS%(sb, s + o);
      UNSAFE.put%ACCESS%(db, d + o, a * b);
    }
  }

  private static void min(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << %SHIFT%;
      %PRIM% a = UNSAFE.get%ACCESS%(db, d + o);
      %PRIM% b = UNSAFE.get%ACCESS%(sb, s + o);
      UNSAFE.put%ACCESS%(db, d + o, Math.min(a, b));
    }
  }

  private static void max(Object db, long d, Object sb, long s, int n) {
    for (int i = 0; i < n; i++) {
      long o = (long) i << %SHIFT%;
      %PRIM% a = UNSAFE.get%ACCESS%(db, d + o);
      %PRIM% b = UNSAFE.get%ACCESS%(sb, s + o);
      UNSAFE.put%ACCESS%(db, d + o, Math.max(a, b));
    }
  }
}
