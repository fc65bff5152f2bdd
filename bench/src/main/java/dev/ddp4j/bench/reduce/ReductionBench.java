package dev.ddp4j.bench.reduce;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.Reductions;
import dev.ddp4j.collectives.reduce.UnsafeMemory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code dst[i] = dst[i] op src[i]} through {@link Reductions#reduce}, the host reduction every cpu
 * collective runs per received piece: one call per invocation, in ns per call, for each element
 * type, op, memory kind (Java array or native memory) and element count. Divide the bytes of one
 * side ({@code count * type size}) by the score for a GB/s figure.
 *
 * <p>Forks get {@code --add-modules jdk.incubator.vector}, as the launcher's workers do, so FLOAT32
 * and FLOAT64 over native memory run the Vector API kernels; start with {@code DDP4J_CPU_VECTOR=0}
 * in the environment (forks inherit it) to time their scalar loops instead. Run with {@code
 * bench/reduce-bench.sh}; {@code ReductionBenchSmokeTest} runs a short pass in CI.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@Warmup(iterations = 3, time = 300, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 300, timeUnit = TimeUnit.MILLISECONDS)
public class ReductionBench {

  /** Where the two operands live. */
  public enum Memory {
    /** Java arrays of the element type (a HostBuffer over an array, the heap gradient case). */
    HEAP,
    /** Native memory (direct buffers, shared-memory slots). */
    NATIVE
  }

  @Param({"FLOAT32", "FLOAT64", "INT32", "INT64", "INT8", "UINT8", "FLOAT16", "BFLOAT16"})
  public DataType type;

  @Param({"SUM", "PRODUCT", "MIN", "MAX"})
  public ReduceOp op;

  @Param({"HEAP", "NATIVE"})
  public Memory memory;

  /** Elements per call: in L1, in L2, and well past the last-level cache. */
  @Param({"1024", "65536", "4194304"})
  public int count;

  private Object dstBase;
  private long dstOffset;
  private Object srcBase;
  private long srcOffset;

  @Setup(Level.Trial)
  public void allocate() {
    long bytes = (long) count * type.sizeBytes();
    if (memory == Memory.HEAP) {
      dstBase = array(type, count);
      srcBase = array(type, count);
      dstOffset = arrayBase(type);
      srcOffset = arrayBase(type);
    } else {
      dstOffset = UNSAFE.allocateMemory(bytes);
      srcOffset = UNSAFE.allocateMemory(bytes);
    }
    fillWithOnes(dstBase, dstOffset);
    fillWithOnes(srcBase, srcOffset);
  }

  @TearDown(Level.Trial)
  public void free() {
    if (memory == Memory.NATIVE) {
      UNSAFE.freeMemory(dstOffset);
      UNSAFE.freeMemory(srcOffset);
    }
  }

  @Benchmark
  public void reduce() {
    Reductions.reduce(type, op, dstBase, dstOffset, srcBase, srcOffset, count);
  }

  /**
   * Ones keep every op finite for as many calls as a run makes (products stay 1, sums of floats
   * saturate slowly and integer sums wrap), so no run times denormals or NaN paths.
   */
  private void fillWithOnes(Object base, long offset) {
    int size = type.sizeBytes();
    for (long i = 0; i < count; i++) {
      long a = offset + i * size;
      switch (type) {
        case FLOAT32:
          UNSAFE.putFloat(base, a, 1f);
          break;
        case FLOAT64:
          UNSAFE.putDouble(base, a, 1d);
          break;
        case INT32:
          UNSAFE.putInt(base, a, 1);
          break;
        case INT64:
          UNSAFE.putLong(base, a, 1L);
          break;
        case INT8:
        case UINT8:
          UNSAFE.putByte(base, a, (byte) 1);
          break;
        case FLOAT16:
          UNSAFE.putShort(base, a, (short) 0x3c00);
          break;
        case BFLOAT16:
          UNSAFE.putShort(base, a, (short) 0x3f80);
          break;
        default:
          throw new IllegalArgumentException("no fill for " + type);
      }
    }
  }

  private static Object array(DataType type, int count) {
    switch (type) {
      case FLOAT32:
        return new float[count];
      case FLOAT64:
        return new double[count];
      case INT32:
        return new int[count];
      case INT64:
        return new long[count];
      case INT8:
      case UINT8:
        return new byte[count];
      case FLOAT16:
      case BFLOAT16:
        return new short[count];
      default:
        throw new IllegalArgumentException("no array for " + type);
    }
  }

  private static long arrayBase(DataType type) {
    switch (type) {
      case FLOAT32:
        return UnsafeMemory.FLOAT_BASE;
      case FLOAT64:
        return UnsafeMemory.DOUBLE_BASE;
      case INT32:
        return UnsafeMemory.INT_BASE;
      case INT64:
        return UnsafeMemory.LONG_BASE;
      case INT8:
      case UINT8:
        return UnsafeMemory.BYTE_BASE;
      default:
        return UnsafeMemory.SHORT_BASE;
    }
  }
}
