package dev.ddp4j.testing;

import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A development probe (not a test): times in-place float SUM all-reduce like bench/mpi_allreduce.c.
 */
public final class AllReducePerf implements RankProcessMain.RankScenario {

  @Override
  public void run(ProcessGroup pg, String[] args) {
    long min = Long.parseLong(args[0]);
    long max = Long.parseLong(args[1]);
    ByteBuffer mem = ByteBuffer.allocateDirect((int) max).order(ByteOrder.nativeOrder());
    mem.clear().limit(8);
    for (int w = 0; w < 20_000; w++) { // let C2 compile the hot paths before timing
      pg.allReduce(HostBuffer.of(mem, dev.ddp4j.DataType.FLOAT32), ReduceOp.SUM).await();
    }
    if (System.getenv("PERF_PCT") != null) {
      long[] t = new long[20_000];
      HostBuffer small = HostBuffer.of(mem.clear().limit(8), dev.ddp4j.DataType.FLOAT32);
      for (int i = 0; i < t.length; i++) {
        long a = System.nanoTime();
        pg.allReduce(small, ReduceOp.SUM).await();
        t[i] = System.nanoTime() - a;
      }
      System.out.printf(
          "rank %d mean %.2f us%n",
          pg.rank(), java.util.Arrays.stream(t).average().orElse(0) / 1e3);
      java.util.Arrays.sort(t);
      System.out.printf(
          "rank %d 8B p10 %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f us%n",
          pg.rank(), t[2000] / 1e3, t[10000] / 1e3, t[18000] / 1e3, t[19800] / 1e3, t[19999] / 1e3);
    }
    for (long bytes = min; bytes <= max; bytes *= 2) {
      mem.clear().limit((int) bytes);
      HostBuffer b = HostBuffer.of(mem, dev.ddp4j.DataType.FLOAT32);
      long it = Math.max(5, Math.min(20_000, (1L << 30) / bytes));
      for (int w = 0; w < 5; w++) {
        pg.allReduce(b, ReduceOp.SUM).await();
      }
      pg.barrier().await();
      long t0 = System.nanoTime();
      for (int i = 0; i < it; i++) {
        pg.allReduce(b, ReduceOp.SUM).await();
      }
      double us = (System.nanoTime() - t0) / 1e3 / it;
      if (pg.rank() == 0) {
        double algbw = bytes / us / 1e3;
        System.out.printf(
            "%d %d %.2f %.3f %.3f%n",
            bytes, bytes / 4, us, algbw, algbw * 2 * (pg.size() - 1) / pg.size());
      }
    }
  }
}
