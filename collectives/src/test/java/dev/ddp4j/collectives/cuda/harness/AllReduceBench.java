package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.cuda.SwitchableChooser;
import dev.ddp4j.collectives.gpu.Cu;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.List;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One rank's all-reduce benchmark, timed as shared/device/nccl_bench.cu times NCCL: fp32 sum in
 * place, sizes 8 B x 4 up to the maximum, 5 warm-up calls, then a wall-clock loop of 200 (under 1
 * MiB), 50 (under 64 MiB) or 10 calls with the stream synchronised before and after (and a barrier
 * before, since the ranks are separate processes). After each size one more call on inputs rank + 1
 * is checked element by element. Rank 0 prints the nccl-tests-style table, plus issue_us: the host
 * time to queue one call (when it is close to time_us the run is bound by the host, not the GPUs).
 * Before the table, 20000 small calls bring the JVM's JIT to its steady state (what a training loop
 * sees after its first steps).
 */
public final class AllReduceBench {

  private final CudaProcessGroup pg;
  private final SwitchableChooser chooser;
  private final PrintStream out;
  private final CUstream stream = new CUstream();

  /** A bench over {@code pg} with the group's own chooser (variant {@code auto} only). */
  public AllReduceBench(CudaProcessGroup pg, PrintStream out) {
    this(pg, null, out);
  }

  AllReduceBench(CudaProcessGroup pg, SwitchableChooser chooser, PrintStream out) {
    this.pg = pg;
    this.chooser = chooser;
    this.out = out;
    Cu.check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
  }

  /**
   * Runs every variant over every size from {@code minBytes} (x 4) to {@code maxBytes}; returns the
   * number of sizes whose check failed. Variants other than {@code auto} need the harness's
   * chooser.
   */
  public int run(List<String> variants, long minBytes, long maxBytes) {
    int bad = 0;
    try (DeviceMemory buf = new DeviceMemory(maxBytes)) {
      DeviceBuffer small =
          new DeviceBuffer(buf.address, pg.deviceIndex(), Cu.handle(stream), 2, DataType.FLOAT32);
      for (int i = 0; i < 20_000; i++) {
        pg.allReduce(small, ReduceOp.SUM);
      }
      sync();
      for (long b = minBytes; b <= Math.min(maxBytes, 1 << 20); b *= 4) {
        size(buf, b, false); // the timing loop itself warms up too
      }
      for (String variant : variants) {
        if (chooser != null) {
          chooser.set(variant);
        } else if (!variant.equals("auto")) {
          throw new IllegalArgumentException(
              "variant " + variant + " needs GpuHarness's chooser (expected: auto)");
        }
        if (pg.rank() == 0) {
          out.printf(
              "# ddp4j cuda all_reduce float32 sum in place, %d GPUs, one process per GPU, variant %s%n",
              pg.size(), variant);
          out.printf(
              "%12s %12s %8s %10s %10s %10s %6s %9s%n",
              "bytes", "count", "type", "time_us", "algbw", "busbw", "check", "issue_us");
        }
        for (long b = minBytes; b <= maxBytes; b *= 4) {
          bad += size(buf, b, true) ? 0 : 1;
        }
      }
    }
    return bad;
  }

  private boolean size(DeviceMemory buf, long bytes, boolean print) {
    long count = bytes / 4;
    long s = Cu.handle(stream);
    DeviceBuffer d = new DeviceBuffer(buf.address, pg.deviceIndex(), s, count, DataType.FLOAT32);
    fill(buf, count, 1.0f);
    int iters = bytes < (1 << 20) ? 200 : bytes < (64 << 20) ? 50 : 10;
    for (int w = 0; w < 5; w++) {
      pg.allReduce(d, ReduceOp.SUM);
    }
    sync();
    pg.barrier().await();
    long t0 = System.nanoTime();
    for (int i = 0; i < iters; i++) {
      pg.allReduce(d, ReduceOp.SUM);
    }
    long issuedNs = System.nanoTime() - t0;
    sync();
    double seconds = (System.nanoTime() - t0) / 1e9 / iters;
    boolean ok = check(buf, d, count);
    if (print && pg.rank() == 0) {
      double algbw = bytes / seconds / 1e9;
      out.printf(
          "%12d %12d %8s %10.2f %10.2f %10.2f %6s %9.2f%n",
          bytes,
          count,
          "float",
          seconds * 1e6,
          algbw,
          algbw * 2.0 * (pg.size() - 1) / pg.size(),
          ok ? "ok" : "BAD",
          issuedNs / 1e3 / iters);
      out.flush();
    }
    return ok;
  }

  private void fill(DeviceMemory buf, long count, float v) {
    DeviceMemory.check(
        JCudaDriver.cuMemsetD32Async(buf.ptr, Float.floatToRawIntBits(v), count, stream),
        "cuMemsetD32Async");
  }

  private void sync() {
    DeviceMemory.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }

  /** One all-reduce of rank + 1 everywhere; every element must be n (n + 1) / 2. */
  private boolean check(DeviceMemory buf, DeviceBuffer d, long count) {
    fill(buf, count, pg.rank() + 1);
    pg.allReduce(d, ReduceOp.SUM).await();
    float want = pg.size() * (pg.size() + 1) / 2f;
    long chunk = 16L << 20;
    ByteBuffer host = DeviceMemory.host(chunk * 4);
    for (long at = 0; at < count; at += chunk) {
      long n = Math.min(chunk, count - at);
      DeviceMemory.check(
          JCudaDriver.cuMemcpyDtoH(jcuda.Pointer.to(host), Cu.ptr(buf.address + at * 4), n * 4),
          "cuMemcpyDtoH");
      for (int i = 0; i < n; i++) {
        if (host.getFloat(i * 4) != want) {
          return false;
        }
      }
    }
    return true;
  }
}
