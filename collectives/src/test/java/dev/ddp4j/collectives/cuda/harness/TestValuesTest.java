package dev.ddp4j.collectives.cuda.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import org.junit.jupiter.api.Test;

/**
 * The GPU harness's inputs stay checkable for every group it runs, 2 to 32 ranks: integer
 * reductions neither overflow their type nor leave float64's exact range, so a kernel that wraps or
 * drops a rank differs from the reference.
 */
class TestValuesTest {

  private static double[] range(DataType t) {
    return switch (t) {
      case INT8 -> new double[] {Byte.MIN_VALUE, Byte.MAX_VALUE};
      case UINT8 -> new double[] {0, 255};
      case INT32 -> new double[] {Integer.MIN_VALUE, Integer.MAX_VALUE};
      default -> new double[] {-(double) (1L << 53), (double) (1L << 53)};
    };
  }

  @Test
  void shouldKeepIntegerResultsOf2To32RanksInsideTheirType() {
    for (DataType t : DataType.values()) {
      if (t.isFloatingPoint()) {
        continue;
      }
      double[] r = range(t);
      for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PRODUCT}) {
        for (int ranks = 2; ranks <= 32; ranks++) {
          // The result, and the sum / product of the magnitudes: no partial result, in whatever
          // order a kernel combines the ranks, leaves the range either.
          for (long i = 0; i < 2000; i++) {
            double ref = TestValues.reference(7, ranks, i, t, op);
            assertThat(ref).as("%s %s of %d ranks at %d", t, op, ranks, i).isBetween(r[0], r[1]);
            double mag = 1;
            double sum = 0;
            for (int q = 0; q < ranks; q++) {
              double v = Math.abs(TestValues.value(7, q, i, t, op));
              mag *= Math.max(1, v);
              sum += v;
            }
            double bound = op == ReduceOp.SUM ? sum : mag;
            assertThat(bound).as("%s %s bound of %d ranks", t, op, ranks).isLessThanOrEqualTo(r[1]);
          }
        }
      }
    }
  }

  @Test
  void shouldKeepTheValuesOfTheFirstEightRanks() {
    // Ranks 0-7 keep what 2-8 rank runs were checked with (int8 sums in -10..10).
    boolean wide = false;
    for (long i = 0; i < 500; i++) {
      double v = TestValues.value(3, 5, i, DataType.INT8, ReduceOp.SUM);
      assertThat(Math.abs(v)).isLessThanOrEqualTo(10);
      wide |= Math.abs(v) > 1;
      assertThat(Math.abs(TestValues.value(3, 9, i, DataType.INT8, ReduceOp.SUM)))
          .isLessThanOrEqualTo(1);
    }
    assertThat(wide).isTrue();
  }
}
