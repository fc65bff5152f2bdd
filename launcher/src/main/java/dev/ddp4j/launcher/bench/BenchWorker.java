package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.Ddp;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One rank of {@code launcher.jar bench}: joins the job with {@link Ddp#init()}, times the
 * collective at every size and checks one result per size; rank 0 prints the table. Arguments (set
 * by {@link BenchCommand}): op dtype redop root minBytes maxBytes stepFactor iterations(0 = auto).
 */
public final class BenchWorker {

  private static final int JIT_WARMUP_CALLS = 20_000;

  private BenchWorker() {}

  public static void main(String[] args) {
    BenchCollective collective = BenchCollective.parse(args[0]);
    DataType type = DataType.parse(args[1]);
    ReduceOp op = ReduceOp.parse(args[2]);
    int root = Integer.parseInt(args[3]);
    long minBytes = Long.parseLong(args[4]);
    long maxBytes = Long.parseLong(args[5]);
    int factor = Integer.parseInt(args[6]);
    long fixedIterations = Long.parseLong(args[7]);
    int status = 0;
    try (ProcessGroup pg = Ddp.init()) {
      run(pg, collective, type, op, root, minBytes, maxBytes, factor, fixedIterations);
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status);
  }

  /** The rule bench/mpi_allreduce.c uses too: about 1 GiB moved per size, 5 to 20000 calls. */
  static long iterations(long bytes) {
    return Math.max(5, Math.min(20_000, (1L << 30) / Math.max(1, bytes)));
  }

  static void run(
      ProcessGroup pg,
      BenchCollective collective,
      DataType type,
      ReduceOp op,
      int root,
      long minBytes,
      long maxBytes,
      int factor,
      long fixedIterations) {
    int n = pg.size();
    int size = type.sizeBytes();
    ByteBuffer in =
        ByteBuffer.allocateDirect((int) Math.max(maxBytes, 64)).order(ByteOrder.nativeOrder());
    ByteBuffer out =
        ByteBuffer.allocateDirect((int) Math.max(maxBytes, 64)).order(ByteOrder.nativeOrder());
    // Compile everything a row runs (its timing loop, barrier, check) before the first row, so no
    // row pays for C2 compiling or deoptimising on a new type profile while it is timed.
    long tinyCount = n;
    HostBuffer tinyIn = slice(in, collective.inputCount(tinyCount, n) * size, type);
    HostBuffer tinyOut = slice(out, collective.outputCount(tinyCount, n) * size, type);
    for (int i = 0; i < JIT_WARMUP_CALLS / 100; i++) {
      time(pg, collective, tinyIn, tinyOut, op, root, 100);
      pg.barrier().await();
      check(pg, collective, type, op, root, tinyCount, tinyIn, tinyOut, in, out);
    }
    if (pg.rank() == 0) {
      System.out.println(BenchTable.header(collective, n, pg.backend(), type, op));
    }
    long step = n * (long) size; // every size a whole number of elements per rank
    long previous = 0;
    for (long bytes = minBytes; bytes <= maxBytes; bytes *= factor) {
      long count = Math.max(1, bytes / step) * n;
      if (count == previous) {
        continue; // sizes below n elements round to the same row
      }
      previous = count;
      long total = count * size;
      HostBuffer input = slice(in, collective.inputCount(count, n) * size, type);
      HostBuffer output = slice(out, collective.outputCount(count, n) * size, type);
      long iterations = fixedIterations > 0 ? fixedIterations : iterations(total);
      for (int w = 0; w < 5; w++) {
        collective.start(pg, input, output, op, root).await();
      }
      pg.barrier().await();
      double us = time(pg, collective, input, output, op, root, iterations) / 1e3 / iterations;
      long wrong = check(pg, collective, type, op, root, count, input, output, in, out);
      if (pg.rank() == 0) {
        System.out.println(
            BenchTable.row(
                total, count, type, op, collective, root, us, collective.busFactor(n), wrong));
      }
    }
  }

  /** Nanoseconds for {@code iterations} calls, each awaited before the next. */
  private static long time(
      ProcessGroup pg,
      BenchCollective collective,
      HostBuffer input,
      HostBuffer output,
      ReduceOp op,
      int root,
      long iterations) {
    long start = System.nanoTime();
    for (long i = 0; i < iterations; i++) {
      collective.start(pg, input, output, op, root).await();
    }
    return System.nanoTime() - start;
  }

  private static HostBuffer slice(ByteBuffer b, long bytes, DataType type) {
    return HostBuffer.of(b.duplicate().clear().limit((int) bytes), type);
  }

  /** Writes known values, runs the collective once, counts wrong elements (summed over ranks). */
  private static long check(
      ProcessGroup pg,
      BenchCollective collective,
      DataType type,
      ReduceOp op,
      int root,
      long count,
      HostBuffer input,
      HostBuffer output,
      ByteBuffer in,
      ByteBuffer out) {
    int n = pg.size();
    int rank = pg.rank();
    long inCount = collective.inputCount(count, n);
    long offset = collective == BenchCollective.ALLGATHER ? rank * inCount : 0;
    for (long i = 0; i < inCount; i++) {
      BenchData.put(in, type, i, BenchData.value(rank, offset + i));
    }
    collective.start(pg, input, output, op, root).await();
    long wrong = 0;
    switch (collective) {
      case ALLREDUCE:
        for (long i = 0; i < count; i++) {
          wrong += BenchData.get(in, type, i) == BenchData.reduced(op, type, n, i) ? 0 : 1;
        }
        break;
      case BROADCAST:
        for (long i = 0; i < count; i++) {
          wrong += BenchData.get(in, type, i) == BenchData.value(root, i) ? 0 : 1;
        }
        break;
      case ALLGATHER:
        for (long i = 0; i < count; i++) {
          wrong += BenchData.get(out, type, i) == BenchData.value((int) (i / inCount), i) ? 0 : 1;
        }
        break;
      default:
        long block = count / n;
        for (long i = 0; i < block; i++) {
          double want = BenchData.reduced(op, type, n, rank * block + i);
          wrong += BenchData.get(out, type, i) == want ? 0 : 1;
        }
    }
    long[] total = {wrong};
    pg.allReduce(HostBuffer.of(total), ReduceOp.SUM).await();
    return total[0];
  }
}
