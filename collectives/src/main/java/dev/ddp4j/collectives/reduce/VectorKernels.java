package dev.ddp4j.collectives.reduce;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * FLOAT32 and FLOAT64 kernels of {@link Reductions} over native memory with the Vector API
 * (incubating in Java 17): C2 does not vectorise Unsafe loops over native memory, so the scalar
 * kernels stop near 11 GB/s where these use the widest vectors the CPU has. Only loaded when the
 * JVM was started with {@code --add-modules jdk.incubator.vector} (see {@link Reductions}); one
 * instance per thread, since its {@link NativeView}s are re-pointed on every call.
 */
final class VectorKernels {

  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
  private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
  private static final ThreadLocal<VectorKernels> PER_THREAD =
      ThreadLocal.withInitial(VectorKernels::new);

  private final ByteBuffer dst = NativeView.create();
  private final ByteBuffer src = NativeView.create();
  private final ByteBuffer out = NativeView.create();

  private VectorKernels() {}

  /** True if {@code type} and {@code op} have a kernel here. */
  static boolean covers(DataType type, ReduceOp op) {
    return (type == DataType.FLOAT32 || type == DataType.FLOAT64) && op != null;
  }

  /**
   * {@code dst[i] = dst[i] op src[i]}, and {@code out[i] = dst[i]} too unless {@code out} is 0, for
   * {@code count} elements at native addresses (count below 2^31 / element size).
   */
  static void reduce(DataType type, ReduceOp op, long dst, long src, long out, int count) {
    VectorKernels k = PER_THREAD.get();
    NativeView.point(k.dst, dst);
    NativeView.point(k.src, src);
    NativeView.point(k.out, out == 0 ? dst : out);
    if (type == DataType.FLOAT32) {
      k.floats(op, out != 0, count);
    } else {
      k.doubles(op, out != 0, count);
    }
  }

  private void floats(ReduceOp op, boolean copy, int n) {
    ByteBuffer d = dst;
    ByteBuffer s = src;
    ByteBuffer o = out;
    int bound = F.loopBound(n) << 2;
    int step = F.vectorByteSize();
    int end = n << 2;
    int i = 0;
    switch (op) {
      case SUM:
      case AVG:
        if (copy) {
          for (; i < bound; i += step) {
            FloatVector r = load(d, i).add(load(s, i));
            r.intoByteBuffer(d, i, NATIVE);
            r.intoByteBuffer(o, i, NATIVE);
          }
          for (; i < end; i += 4) {
            float r = d.getFloat(i) + s.getFloat(i);
            d.putFloat(i, r);
            o.putFloat(i, r);
          }
          return;
        }
        for (; i < bound; i += step) {
          load(d, i).add(load(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 4) {
          d.putFloat(i, d.getFloat(i) + s.getFloat(i));
        }
        break;
      case PRODUCT:
        for (; i < bound; i += step) {
          load(d, i).mul(load(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 4) {
          d.putFloat(i, d.getFloat(i) * s.getFloat(i));
        }
        break;
      case MIN:
        for (; i < bound; i += step) {
          load(d, i).min(load(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 4) {
          d.putFloat(i, Math.min(d.getFloat(i), s.getFloat(i)));
        }
        break;
      default:
        for (; i < bound; i += step) {
          load(d, i).max(load(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 4) {
          d.putFloat(i, Math.max(d.getFloat(i), s.getFloat(i)));
        }
    }
    if (copy) {
      UnsafeMemory.copy(null, NativeView.address(d), null, NativeView.address(o), end);
    }
  }

  private void doubles(ReduceOp op, boolean copy, int n) {
    ByteBuffer d = dst;
    ByteBuffer s = src;
    int bound = D.loopBound(n) << 3;
    int step = D.vectorByteSize();
    int end = n << 3;
    int i = 0;
    switch (op) {
      case SUM:
      case AVG:
        for (; i < bound; i += step) {
          loadD(d, i).add(loadD(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 8) {
          d.putDouble(i, d.getDouble(i) + s.getDouble(i));
        }
        break;
      case PRODUCT:
        for (; i < bound; i += step) {
          loadD(d, i).mul(loadD(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 8) {
          d.putDouble(i, d.getDouble(i) * s.getDouble(i));
        }
        break;
      case MIN:
        for (; i < bound; i += step) {
          loadD(d, i).min(loadD(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 8) {
          d.putDouble(i, Math.min(d.getDouble(i), s.getDouble(i)));
        }
        break;
      default:
        for (; i < bound; i += step) {
          loadD(d, i).max(loadD(s, i)).intoByteBuffer(d, i, NATIVE);
        }
        for (; i < end; i += 8) {
          d.putDouble(i, Math.max(d.getDouble(i), s.getDouble(i)));
        }
    }
    if (copy) {
      UnsafeMemory.copy(null, NativeView.address(d), null, NativeView.address(out), end);
    }
  }

  private static FloatVector load(ByteBuffer b, int at) {
    return FloatVector.fromByteBuffer(F, b, at, NATIVE);
  }

  private static DoubleVector loadD(ByteBuffer b, int at) {
    return DoubleVector.fromByteBuffer(D, b, at, NATIVE);
  }
}
