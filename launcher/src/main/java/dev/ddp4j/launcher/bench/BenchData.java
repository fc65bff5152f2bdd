package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import java.nio.ByteBuffer;

/**
 * The values the bench's correctness check writes and expects: small integers, so every op is exact
 * in every supported dtype whatever order the ranks reduce in.
 */
final class BenchData {

  private BenchData() {}

  /** Rank {@code rank}'s value at global element {@code i}: an integer in -3..3. */
  static double value(int rank, long i) {
    return (int) ((i * 7 + rank * 3) % 7) - 3;
  }

  static void put(ByteBuffer b, DataType type, long index, double v) {
    int at = (int) (index * type.sizeBytes());
    switch (type) {
      case FLOAT32:
        b.putFloat(at, (float) v);
        break;
      case FLOAT64:
        b.putDouble(at, v);
        break;
      case INT32:
        b.putInt(at, (int) v);
        break;
      case INT64:
        b.putLong(at, (long) v);
        break;
      default:
        throw new IllegalArgumentException(
            "--dtype "
                + type
                + " is not supported by the bench (expected: float32, float64, int32, int64)");
    }
  }

  static double get(ByteBuffer b, DataType type, long index) {
    int at = (int) (index * type.sizeBytes());
    switch (type) {
      case FLOAT32:
        return b.getFloat(at);
      case FLOAT64:
        return b.getDouble(at);
      case INT32:
        return b.getInt(at);
      default:
        return b.getLong(at);
    }
  }

  /** What {@code op} over every rank's {@link #value} at {@code i} gives in {@code type}. */
  static double reduced(ReduceOp op, DataType type, int ranks, long i) {
    double r = value(0, i);
    for (int k = 1; k < ranks; k++) {
      double v = value(k, i);
      switch (op) {
        case SUM:
        case AVG:
          r += v;
          break;
        case PRODUCT:
          r *= v;
          break;
        case MIN:
          r = Math.min(r, v);
          break;
        default:
          r = Math.max(r, v);
      }
    }
    if (op != ReduceOp.AVG) {
      return r;
    }
    switch (type) {
      case FLOAT32:
        return (float) r / ranks;
      case FLOAT64:
        return r / ranks;
      default:
        return (long) r / ranks;
    }
  }
}
