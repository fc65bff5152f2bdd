package dev.ddp4j.runtime.comm;

import dev.ddp4j.Work;
import java.util.Locale;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/** The built-in {@link CommHook}s. */
public final class CommHooks {

  /** The names {@link #named} accepts, for error lines. */
  public static final String NAMES = "allreduce, fp16, bf16 or powersgd";

  private CommHooks() {}

  /** Sums the bucket in place in its own precision (the default). */
  public static CommHook allReduce() {
    return CommHook.of(
        "allreduce",
        null,
        (none, group, bucket) -> CommHook.Pending.of(bucket.allReduce(bucket.buffer())));
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
   * PowerSGD (Vogels et al. 2019): each weight matrix of a bucket travels as two rank-{@code rank}
   * factors, with error feedback and warm start; plain all-reduce before step {@code startStep}. A
   * new hook per model: it keeps per-bucket state. See {@link PowerSgd}.
   */
  public static CommHook powerSgd(int rank, long startStep) {
    return new PowerSgd(rank, startStep);
  }

  /**
   * A hook by name, as {@code DDP4J_COMM_HOOK} gives it: {@code allreduce}, {@code fp16}, {@code
   * bf16} or {@code powersgd} (with {@link PowerSgd#DEFAULT_RANK} and {@link
   * PowerSgd#DEFAULT_START_STEP}).
   *
   * @throws IllegalArgumentException naming the value and the accepted names
   */
  public static CommHook named(String name) {
    switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "allreduce":
      case "none":
        return allReduce();
      case "fp16":
        return fp16Compress();
      case "bf16":
        return bf16Compress();
      case "powersgd":
        return powerSgd(PowerSgd.DEFAULT_RANK, PowerSgd.DEFAULT_START_STEP);
      default:
        throw new IllegalArgumentException(
            "comm hook '" + name + "' is not known (expected: " + NAMES + ")");
    }
  }

  private static CommHook compressed(DataType wire, String name) {
    return CommHook.of(
        name,
        wire,
        (type, group, bucket) -> {
          int n = group.size();
          INDArray sent = bucket.buffer();
          // The compressed copy must stay reachable until the collective completes: the finish
          // step below captures it.
          INDArray onWire = sent.div(n).castTo(type);
          Work w = bucket.allReduce(onWire);
          return CommHook.Pending.of(w, () -> sent.assign(onWire.castTo(sent.dataType())).muli(n));
        });
  }
}
