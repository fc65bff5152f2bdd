package dev.ddp4j.launcher.bench;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import java.util.Locale;

/**
 * The collectives the bench times, with nccl-tests' definitions: {@code bytes} is the per-rank
 * buffer for all-reduce and broadcast, the whole (gathered / scattered) buffer for all-gather and
 * reduce-scatter; bus bandwidth is algorithm bandwidth times {@link #busFactor}.
 */
enum BenchCollective {
  ALLREDUCE,
  BROADCAST,
  ALLGATHER,
  REDUCESCATTER;

  static BenchCollective parse(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
    for (BenchCollective c : values()) {
      if (c.name().toLowerCase(Locale.ROOT).equals(n)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "--op " + name + " (expected: allreduce, broadcast, allgather or reducescatter)");
  }

  /** nccl-tests' busbw / algbw for {@code n} ranks. */
  double busFactor(int n) {
    switch (this) {
      case ALLREDUCE:
        return 2.0 * (n - 1) / n;
      case BROADCAST:
        return 1.0;
      default:
        return (n - 1) / (double) n;
    }
  }

  /** Elements in this rank's input for a {@code totalCount}-element bench size. */
  long inputCount(long totalCount, int n) {
    return this == ALLGATHER ? totalCount / n : totalCount;
  }

  /** Elements in this rank's output. */
  long outputCount(long totalCount, int n) {
    return this == REDUCESCATTER ? totalCount / n : totalCount;
  }

  /** Starts one collective, in place where the collective allows it. */
  Work start(ProcessGroup pg, TensorBuffer in, TensorBuffer out, ReduceOp op, int root) {
    switch (this) {
      case ALLREDUCE:
        return pg.allReduce(in, op);
      case BROADCAST:
        return pg.broadcast(in, root);
      case ALLGATHER:
        return pg.allGather(in, out);
      default:
        return pg.reduceScatter(in, out, op);
    }
  }
}
