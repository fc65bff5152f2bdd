package dev.ddp4j.runtime.comm;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import java.util.Locale;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/** The built-in {@link CommHook}s. */
public final class CommHooks {

  private CommHooks() {}

  /** Sums the bucket in place in its own precision (the default). */
  public static CommHook allReduce() {
    return new CommHook() {
      @Override
      public Pending start(ProcessGroup group, INDArray bucket) {
        return Pending.of(group.allReduce(NdBuffers.host(bucket), ReduceOp.SUM));
      }

      @Override
      public String name() {
        return "allreduce";
      }
    };
  }

  /**
   * Sends fp16 on the wire: half the bytes; values are divided by the world size first so sums stay
   * in range.
   */
  public static CommHook fp16Compress() {
    return compressed(DataType.HALF, "fp16");
  }

  /** Sends bf16 on the wire: half the bytes, fp32's range, 8 bits of mantissa. */
  public static CommHook bf16Compress() {
    return compressed(DataType.BFLOAT16, "bf16");
  }

  /**
   * A hook by name, as {@code DDP4J_COMM_HOOK} gives it: {@code allreduce}, {@code fp16} or {@code
   * bf16}.
   *
   * @throws IllegalArgumentException naming the value and the accepted names
   */
  /** The names {@link #named} accepts, for error lines. */
  public static final String NAMES = "allreduce, fp16 or bf16";

  public static CommHook named(String name) {
    switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "allreduce":
      case "none":
        return allReduce();
      case "fp16":
        return fp16Compress();
      case "bf16":
        return bf16Compress();
      default:
        throw new IllegalArgumentException(
            "comm hook '" + name + "' is not known (expected: " + NAMES + ")");
    }
  }

  private static CommHook compressed(DataType wire, String name) {
    return new CommHook() {
      @Override
      public Pending start(ProcessGroup group, INDArray bucket) {
        int n = group.size();
        // The compressed copy must stay reachable until the collective completes: it is captured
        // below.
        INDArray onWire = bucket.div(n).castTo(wire);
        Work w = group.allReduce(NdBuffers.host(onWire), ReduceOp.SUM);
        return new Pending() {
          @Override
          public Work work() {
            return w;
          }

          @Override
          public void finish() {
            bucket.assign(onWire.castTo(bucket.dataType())).muli(n);
          }
        };
      }

      @Override
      public String name() {
        return name;
      }
    };
  }
}
