package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.cuda.Cu;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import java.io.PrintStream;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * broadcast, allGather and reduceScatter against the way the cuda backend did them before it had
 * their kernels, in one run: broadcast and allGather as byte-wise MAX all-reduces over zero-filled
 * buffers (the memsets and the own-block copy included), reduceScatter as an all-reduce of the
 * whole input into a scratch buffer (what a caller did without it). fp32, sizes as nccl-tests
 * counts them (the whole buffer for allGather / reduceScatter), each timed as AllReduceBench times
 * (warm-up, barrier, a loop queued back to back, stream synchronised). Rank 0 prints the table.
 */
final class MovementBench {

  private final CudaProcessGroup pg;
  private final PrintStream out;
  private final CUstream stream = new CUstream();
  private final long s;

  MovementBench(CudaProcessGroup pg, PrintStream out) {
    this.pg = pg;
    this.out = out;
    Cu.check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    this.s = Cu.handle(stream);
  }

  void run(long minBytes, long maxBytes) {
    int n = pg.size();
    try (DeviceMemory a = new DeviceMemory(maxBytes);
        DeviceMemory b = new DeviceMemory(maxBytes);
        DeviceMemory c = new DeviceMemory(maxBytes)) {
      a.fill((byte) 1);
      for (String op : new String[] {"broadcast", "allgather", "reducescatter"}) {
        if (pg.rank() == 0) {
          out.printf(
              "# %s float32, %d GPUs: ddp4j's kernel (new) against %s (old)%n%12s %10s %10s %8s%n",
              op,
              n,
              op.equals("reducescatter")
                  ? "an all-reduce of the whole input"
                  : "the byte-wise MAX all-reduce it replaced",
              "bytes",
              "new_us",
              "old_us",
              "old/new");
        }
        for (long bytes = minBytes; bytes <= maxBytes; bytes *= 4) {
          long count = Math.max(1, bytes / 4 / n) * n;
          double fresh = time(op, true, count, a, b, c);
          double old = time(op, false, count, a, b, c);
          if (pg.rank() == 0) {
            out.printf("%12d %10.2f %10.2f %8.2f%n", count * 4, fresh, old, old / fresh);
            out.flush();
          }
        }
      }
    }
  }

  /** Microseconds per call. */
  private double time(
      String op, boolean fresh, long count, DeviceMemory a, DeviceMemory b, DeviceMemory c) {
    long iterations = Math.max(5, Math.min(2000, (1L << 30) / (count * 4)));
    for (int w = 0; w < 5; w++) {
      call(op, fresh, count, a, b, c);
    }
    DeviceMemory.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
    pg.barrier().await();
    long t0 = System.nanoTime();
    for (long i = 0; i < iterations; i++) {
      call(op, fresh, count, a, b, c);
    }
    DeviceMemory.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
    return (System.nanoTime() - t0) / 1e3 / iterations;
  }

  private void call(
      String op, boolean fresh, long count, DeviceMemory a, DeviceMemory b, DeviceMemory c) {
    int n = pg.size();
    int dev = pg.deviceIndex();
    long bytes = count * 4;
    DeviceBuffer whole = new DeviceBuffer(a.address, dev, s, count, DataType.FLOAT32);
    switch (op) {
      case "broadcast" -> {
        if (fresh) {
          pg.broadcast(whole, 0);
        } else {
          if (pg.rank() != 0) {
            memset(a.address, bytes);
          }
          pg.allReduce(new DeviceBuffer(a.address, dev, s, bytes, DataType.UINT8), ReduceOp.MAX);
        }
      }
      case "allgather" -> {
        DeviceBuffer part = new DeviceBuffer(a.address, dev, s, count / n, DataType.FLOAT32);
        DeviceBuffer gathered = new DeviceBuffer(b.address, dev, s, count, DataType.FLOAT32);
        if (fresh) {
          pg.allGather(part, gathered);
        } else {
          long partBytes = bytes / n;
          long mine = b.address + pg.rank() * partBytes;
          memset(b.address, pg.rank() * partBytes);
          memset(mine + partBytes, (n - 1L - pg.rank()) * partBytes);
          DeviceMemory.check(
              JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(mine), Cu.ptr(a.address), partBytes, stream),
              "cuMemcpyDtoDAsync");
          pg.allReduce(new DeviceBuffer(b.address, dev, s, bytes, DataType.UINT8), ReduceOp.MAX);
        }
      }
      default -> {
        if (fresh) {
          pg.reduceScatter(
              whole,
              new DeviceBuffer(b.address, dev, s, count / n, DataType.FLOAT32),
              ReduceOp.SUM);
        } else {
          pg.allReduce(
              whole, new DeviceBuffer(c.address, dev, s, count, DataType.FLOAT32), ReduceOp.SUM);
        }
      }
    }
  }

  private void memset(long address, long bytes) {
    if (bytes > 0) {
      DeviceMemory.check(
          JCudaDriver.cuMemsetD8Async(Cu.ptr(address), (byte) 0, bytes, stream), "cuMemsetD8Async");
    }
  }
}
