package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import java.nio.ByteBuffer;

/**
 * One rank of {@code launcher.jar bench}, run by WorkerBootstrap: joins the job with {@link
 * Ddp#init()}, times the collective at every size and checks one result per size; rank 0 prints the
 * table. Arguments (set by {@link BenchCommand}): op dtype redop root minBytes maxBytes stepFactor
 * iterations(0 = auto) buffers(plain or shared).
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
    boolean shared = args.length > 8 && args[8].equals("shared");
    // A failure reaches WorkerBootstrap, which reports it (a configuration mistake in one line)
    // and exits 2 or 1.
    try (ProcessGroup pg = Ddp.init()) {
      run(pg, collective, type, op, root, minBytes, maxBytes, factor, fixedIterations, shared);
    }
    System.out.flush();
    System.exit(0); // a backend's leftover non-daemon threads must not keep a finished rank alive
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
      long fixedIterations,
      boolean shared) {
    try (BenchMemory memory =
        pg instanceof DeviceGroup device
            ? new CudaBenchMemory(device, maxBytes)
            : new HostBenchMemory(pg, maxBytes, shared)) {
      int n = pg.size();
      int size = type.sizeBytes();
      // Compile the paths of larger sizes (programs of many pieces, direct reads of peers'
      // buffers), so a range that starts high does not time its first rows while C2 compiles them.
      for (long bytes = 64 << 10; bytes <= Math.min(maxBytes, 4 << 20); bytes *= 4) {
        long count = Math.max(1, bytes / (n * (long) size)) * n;
        TensorBuffer in = memory.input(collective.inputCount(count, n) * size, type);
        TensorBuffer out = memory.output(collective.outputCount(count, n) * size, type);
        time(pg, memory, collective, in, out, op, root, Math.max(20, (256L << 20) / bytes));
      }
      // Then everything a small row runs (its timing loop, barrier, check), last: so no row pays
      // for C2 compiling or deoptimising on a new type profile while it is timed (after the large
      // sizes, the first small rows took 2-6 us where the same calls take 1 us once recompiled).
      long tinyCount = n;
      TensorBuffer tinyIn = memory.input(collective.inputCount(tinyCount, n) * size, type);
      TensorBuffer tinyOut = memory.output(collective.outputCount(tinyCount, n) * size, type);
      for (int i = 0; i < JIT_WARMUP_CALLS / 100; i++) {
        time(pg, memory, collective, tinyIn, tinyOut, op, root, 100);
        pg.barrier().await();
        check(pg, memory, collective, type, op, root, tinyCount, tinyIn, tinyOut);
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
        TensorBuffer input = memory.input(collective.inputCount(count, n) * size, type);
        TensorBuffer output = memory.output(collective.outputCount(count, n) * size, type);
        long iterations = fixedIterations > 0 ? fixedIterations : iterations(total);
        // Warm-up calls: a quarter of the timed ones, up to 64 MiB moved, at least 5 (the same
        // number on every rank). Five alone left the first row of a range 1.2-1.4x slow while C2
        // recompiled for its size.
        long warmup = Math.max(5, Math.min(iterations / 4, (64L << 20) / Math.max(1, total)));
        for (long w = 0; w < warmup; w++) {
          collective.start(pg, input, output, op, root).await();
        }
        pg.barrier().await();
        double us =
            time(pg, memory, collective, input, output, op, root, iterations) / 1e3 / iterations;
        long wrong = check(pg, memory, collective, type, op, root, count, input, output);
        if (pg.rank() == 0) {
          System.out.println(
              BenchTable.row(
                  total, count, type, op, collective, root, us, collective.busFactor(n), wrong));
        }
      }
    }
  }

  /**
   * Nanoseconds for {@code iterations} calls: each awaited before the next, or, where {@link
   * BenchMemory#queueAll()}, all queued and the last awaited.
   */
  private static long time(
      ProcessGroup pg,
      BenchMemory memory,
      BenchCollective collective,
      TensorBuffer input,
      TensorBuffer output,
      ReduceOp op,
      int root,
      long iterations) {
    long start = System.nanoTime();
    Work last = null;
    for (long i = 0; i < iterations; i++) {
      last = collective.start(pg, input, output, op, root);
      if (!memory.queueAll()) {
        last.await();
      }
    }
    if (last != null) {
      last.await();
    }
    return System.nanoTime() - start;
  }

  /** Writes known values, runs the collective once, counts wrong elements (summed over ranks). */
  private static long check(
      ProcessGroup pg,
      BenchMemory memory,
      BenchCollective collective,
      DataType type,
      ReduceOp op,
      int root,
      long count,
      TensorBuffer input,
      TensorBuffer output) {
    int n = pg.size();
    int rank = pg.rank();
    ByteBuffer in = memory.hostIn();
    ByteBuffer out = memory.hostOut();
    long inCount = collective.inputCount(count, n);
    long offset = collective == BenchCollective.ALLGATHER ? rank * inCount : 0;
    for (long i = 0; i < inCount; i++) {
      BenchData.put(in, type, i, BenchData.value(rank, offset + i));
    }
    memory.upload(type.bytesFor(inCount));
    collective.start(pg, input, output, op, root).await();
    memory.download(type.bytesFor(inCount), type.bytesFor(collective.outputCount(count, n)));
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
    return memory.sumOverRanks(pg, wrong);
  }
}
