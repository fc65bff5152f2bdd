package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The stretch experiment of issue 6 (bench/cuda-allreduce-h200.md): the one-shot all-reduce with
 * its pushes through Hopper's bulk-copy unit ({@code bulk:BLOCKS:STEP}), or pulling from the peers'
 * scratch instead of pushing ({@code pull:BLOCKS:STEP}), against the backend's all-reduce ({@code
 * current}); broadcast with more pusher blocks ({@code bcast:BLOCKS}) or by pulls ({@code
 * pullbcast:BLOCKS:STEP}) against the backend's, in one run, fp32 sum in place, 64 MiB to 1 GiB.
 * Each variant is timed as AllReduceBench times (warm-up, barrier, a loop queued back to back) and
 * then checked once on inputs rank + 1. Not used by the backend.
 */
public final class BulkPushExperiment {

  private BulkPushExperiment() {}

  /**
   * Runs the variants at every size; rank 0 prints the table. Returns the number of failed checks.
   */
  public static int run(CudaProcessGroup pg, PrintStream out, String[] variants, long maxBytes) {
    CUdeviceptr buf = new CUdeviceptr();
    Cu.check(JCudaDriver.cuMemAlloc(buf, maxBytes), "cuMemAlloc " + maxBytes);
    CUstream stream = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    int bad = 0;
    try {
      if (pg.rank() == 0) {
        out.printf(
            "# bulk-copy experiment, %d GPUs, fp32; busbw as nccl-tests (all-reduce 2(n-1)/n, broadcast"
                + " 1)%n%-22s %12s %10s %10s %6s%n",
            pg.size(), "variant", "bytes", "time_us", "busbw", "check");
      }
      for (long bytes = 64L << 20; bytes <= maxBytes; bytes *= 4) {
        for (String v : variants) {
          double us = time(pg, v, Cu.address(buf), bytes, stream);
          boolean ok = check(pg, v, buf, bytes, stream);
          bad += ok ? 0 : 1;
          if (pg.rank() == 0) {
            double factor = v.contains("bcast") ? 1 : 2.0 * (pg.size() - 1) / pg.size();
            out.printf(
                "%-22s %12d %10.2f %10.2f %6s%n",
                v, bytes, us, bytes / us / 1e3 * factor, ok ? "ok" : "BAD");
            out.flush();
          }
        }
      }
    } finally {
      JCudaDriver.cuStreamSynchronize(stream);
      JCudaDriver.cuStreamDestroy(stream);
      JCudaDriver.cuMemFree(buf);
    }
    return bad;
  }

  private static void call(CudaProcessGroup pg, String v, long address, long bytes, CUstream s) {
    String[] p = v.split(":");
    switch (p[0]) {
      case "current" ->
          pg.allReduce(
              new DeviceBuffer(
                  address, pg.deviceIndex(), Cu.handle(s), bytes / 4, DataType.FLOAT32),
              ReduceOp.SUM);
      case "bulk", "pull" ->
          pg.collectives()
              .experiment(
                  "ddp4j_" + p[0] + "oneshot_float32_sum",
                  address,
                  address,
                  bytes / 4,
                  4,
                  0,
                  Integer.parseInt(p[1]),
                  Long.parseLong(p[2]),
                  s);
      case "pullbcast" ->
          pg.collectives()
              .experiment(
                  "ddp4j_pullbroadcast_bytes",
                  address,
                  address,
                  bytes,
                  1,
                  0,
                  Integer.parseInt(p[1]),
                  Long.parseLong(p[2]),
                  s);
      case "bcast" -> pg.collectives().broadcast(address, bytes, 0, Integer.parseInt(p[1]), s);
      default -> throw new IllegalArgumentException("variant " + v);
    }
  }

  private static double time(CudaProcessGroup pg, String v, long address, long bytes, CUstream s) {
    int iters = 10;
    for (int w = 0; w < 3; w++) {
      call(pg, v, address, bytes, s);
    }
    Cu.check(JCudaDriver.cuStreamSynchronize(s), "cuStreamSynchronize");
    pg.barrier().await();
    long t0 = System.nanoTime();
    for (int i = 0; i < iters; i++) {
      call(pg, v, address, bytes, s);
    }
    Cu.check(JCudaDriver.cuStreamSynchronize(s), "cuStreamSynchronize");
    return (System.nanoTime() - t0) / 1e3 / iters;
  }

  /** One call on rank + 1 everywhere: the sum n(n+1)/2, or the root's 1 for broadcast. */
  private static boolean check(
      CudaProcessGroup pg, String v, CUdeviceptr buf, long bytes, CUstream s) {
    float mine = pg.rank() + 1;
    Cu.check(
        JCudaDriver.cuMemsetD32Async(buf, Float.floatToRawIntBits(mine), bytes / 4, s),
        "cuMemsetD32Async");
    call(pg, v, Cu.address(buf), bytes, s);
    Cu.check(JCudaDriver.cuStreamSynchronize(s), "cuStreamSynchronize");
    float want = v.contains("bcast") ? 1 : pg.size() * (pg.size() + 1) / 2f;
    long chunk = 16L << 20;
    ByteBuffer host = ByteBuffer.allocateDirect((int) chunk).order(ByteOrder.nativeOrder());
    for (long at = 0; at < bytes; at += chunk) {
      long n = Math.min(chunk, bytes - at);
      Cu.check(
          JCudaDriver.cuMemcpyDtoH(Pointer.to(host), Cu.ptr(Cu.address(buf) + at), n),
          "cuMemcpyDtoH");
      for (int i = 0; i < n; i += 4) {
        if (host.getFloat(i) != want) {
          return false;
        }
      }
    }
    return true;
  }
}
