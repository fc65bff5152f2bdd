package dev.ddp4j.collectives.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.testing.TypedValues;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every dtype x op x storage against a sequential float64 reference. */
class ReductionsTest {

  private static final int COUNT = 1037; // odd, not a multiple of any vector width

  @ParameterizedTest
  @EnumSource(DataType.class)
  void shouldReduceEveryOpLikeTheFloat64Reference(DataType type) {
    for (ReduceOp op : ReduceOp.values()) {
      for (HostBuffer.Storage storage : HostBuffer.Storage.values()) {
        Random random = new Random(type.ordinal() * 31 + op.ordinal());
        double[] a = TypedValues.random(type, COUNT, random);
        double[] b = TypedValues.random(type, COUNT, random);
        HostBuffer dst = TypedValues.buffer(type, a, storage);
        HostBuffer src = TypedValues.buffer(type, b, storage);
        HostMemory d = HostMemory.of(dst);
        HostMemory s = HostMemory.of(src);
        Reductions.reduce(type, op, d.base(), d.offset(), s.base(), s.offset(), COUNT);
        if (op == ReduceOp.AVG) {
          Reductions.divide(type, d.base(), d.offset(), COUNT, 2);
        }
        double[] got = TypedValues.read(dst);
        for (int i = 0; i < COUNT; i++) {
          double want = TypedValues.reference(type, op, new double[] {a[i], b[i]});
          assertThat(got[i])
              .as("%s %s %s element %d of %s and %s", type, op, storage, i, a[i], b[i])
              .isEqualTo(want);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = DataType.class,
      names = {"FLOAT16", "BFLOAT16"})
  void shouldWidenAndRoundHalfFloatsLosslessly(DataType type) {
    double[] values = TypedValues.random(type, COUNT, new Random(7));
    HostMemory half = HostMemory.of(TypedValues.buffer(type, values, HostBuffer.Storage.ARRAY));
    float[] wide = new float[COUNT];
    boolean bf = type == DataType.BFLOAT16;
    Reductions.halfToFloat(bf, half.base(), half.offset(), wide, UnsafeMemory.FLOAT_BASE, COUNT);
    short[] back = new short[COUNT];
    Reductions.floatToHalf(bf, wide, UnsafeMemory.FLOAT_BASE, back, UnsafeMemory.SHORT_BASE, COUNT);
    assertThat(back).isEqualTo((short[]) half.base());
    for (int i = 0; i < COUNT; i++) {
      assertThat((double) wide[i]).isEqualTo(values[i]);
    }
  }

  @ParameterizedTest
  @EnumSource(HostBuffer.Storage.class)
  void shouldSumLargeFloat32RunsAcrossBlocks(HostBuffer.Storage storage) {
    int count = (1 << 20) + 3;
    double[] a = TypedValues.random(DataType.FLOAT32, count, new Random(1));
    double[] b = TypedValues.random(DataType.FLOAT32, count, new Random(2));
    HostBuffer dst = TypedValues.buffer(DataType.FLOAT32, a, storage);
    HostMemory d = HostMemory.of(dst);
    HostMemory s = HostMemory.of(TypedValues.buffer(DataType.FLOAT32, b, storage));
    Reductions.reduce(
        DataType.FLOAT32, ReduceOp.SUM, d.base(), d.offset(), s.base(), s.offset(), count);
    double[] got = TypedValues.read(dst);
    for (int i = 0; i < count; i += 4099) {
      assertThat(got[i]).isEqualTo((double) (float) (a[i] + b[i]));
    }
    assertThat(got[count - 1]).isEqualTo((double) (float) (a[count - 1] + b[count - 1]));
  }
}
