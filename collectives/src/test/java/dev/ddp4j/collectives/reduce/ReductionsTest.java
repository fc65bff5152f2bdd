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

  @org.junit.jupiter.api.Test
  void shouldUseTheVectorKernelsInThisJvm() {
    // surefire starts this JVM with --add-modules jdk.incubator.vector (collectives/pom.xml), so
    // the test above checks the vectorised FLOAT32 / FLOAT64 kernels on native memory.
    assertThat(Reductions.VECTORISED).isTrue();
  }

  @ParameterizedTest
  @EnumSource(
      value = DataType.class,
      names = {"FLOAT32", "FLOAT64", "INT32", "BFLOAT16"})
  void shouldReduceAndForwardEveryOpLikeReduceAlone(DataType type) {
    int size = type.sizeBytes();
    for (ReduceOp op : ReduceOp.values()) {
      for (int count : new int[] {0, 1, 15, 1037, 70_001}) {
        Random random = new Random(count * 7L + op.ordinal());
        double[] a = TypedValues.random(type, count, random);
        double[] b = TypedValues.random(type, count, random);
        HostMemory fused = HostMemory.of(TypedValues.buffer(type, a, HostBuffer.Storage.NIO));
        HostMemory alone = HostMemory.of(TypedValues.buffer(type, a, HostBuffer.Storage.NIO));
        HostMemory src = HostMemory.of(TypedValues.buffer(type, b, HostBuffer.Storage.NIO));
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(Math.max(1, count * size));
        long outAddress = UnsafeMemory.addressOf(out);
        Reductions.reduceAndCopy(type, op, null, fused.offset(), src.offset(), outAddress, count);
        Reductions.reduce(type, op, null, alone.offset(), null, src.offset(), count);
        byte[] want = bytes(alone.offset(), count * size);
        assertThat(bytes(fused.offset(), count * size))
            .as("%s %s count %d: the working buffer", type, op, count)
            .isEqualTo(want);
        assertThat(bytes(outAddress, count * size))
            .as("%s %s count %d: the forwarded piece", type, op, count)
            .isEqualTo(want);
      }
    }
  }

  private static byte[] bytes(long address, int length) {
    byte[] copy = new byte[length];
    UnsafeMemory.copy(null, address, copy, UnsafeMemory.BYTE_BASE, length);
    return copy;
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
