package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.cuda.SwitchableChooser;
import dev.ddp4j.collectives.gpu.Cu;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One rank's correctness run of a host-staged cuda group (GpuHarness staged-check, under {@code
 * DDP4J_P2P_DISABLE=1}, {@code DDP4J_P2P_DISABLE_PAIRS} or one {@code DDP4J_HOST_ID} per rank):
 * allReduce for every op over several dtypes and sizes (0, 1, odd, several chunks, optionally 256
 * MiB), broadcast, allGather, reduceScatter and barrier, against the float64 reference of {@link
 * AllReduceCheck} with outputs poisoned; plus the stream contract (inputs written on the stream
 * just before the call, results read on it just after, without awaiting the Work).
 */
final class StagedCheck {

  private static final byte POISON = 0x7f;

  private final CudaProcessGroup pg;
  private final AllReduceCheck base;
  private final CUstream stream = new CUstream();
  private final CollectiveCheck moves;

  StagedCheck(CudaProcessGroup pg, SwitchableChooser chooser, PrintStream out) {
    this.pg = pg;
    this.base = new AllReduceCheck(pg, chooser, out);
    Cu.check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    this.moves = new CollectiveCheck(pg, base, Cu.handle(stream));
  }

  int cases() {
    return base.cases();
  }

  int failed() {
    return base.failed();
  }

  void runAll(boolean large) {
    DataType[] types = {
      DataType.FLOAT32,
      DataType.FLOAT64,
      DataType.BFLOAT16,
      DataType.FLOAT16,
      DataType.INT32,
      DataType.INT64,
      DataType.UINT8
    };
    for (DataType t : types) {
      for (ReduceOp op : ReduceOp.values()) {
        for (long n : new long[] {0, 1, 7, 1_000_003}) {
          base.allReduce("staged", t, op, n, 0, true);
          base.allReduce("staged", t, op, n, 0, false);
        }
      }
    }
    base.allReduce("staged", DataType.FLOAT32, ReduceOp.SUM, 3_000_017, 1, false);
    for (long n : new long[] {0, 1, 7, 1_000_003}) {
      moves.broadcast(DataType.FLOAT32, n, pg.size() - 1);
      moves.allGather(DataType.INT32, n, 0, false);
      moves.reduceScatter(DataType.FLOAT32, ReduceOp.SUM, n, 0, false);
      moves.reduceScatter(DataType.BFLOAT16, ReduceOp.AVG, n, 0, true);
    }
    moves.broadcast(DataType.BFLOAT16, 4097, 0);
    moves.reduceScatter(DataType.INT64, ReduceOp.MAX, 300_007, 0, false);
    streamOrder(5_000_000);
    if (large) {
      base.allReduce("staged", DataType.FLOAT32, ReduceOp.SUM, 64L << 20, 0, true); // 256 MiB
      moves.allGather(DataType.FLOAT32, (32L << 20) + 3, 0, false);
    }
    base.barrier();
  }

  /**
   * Stream contract: fill on the stream, two all-reduces and a device copy queued behind them, no
   * await, one synchronise at the end: the copy must hold (rank sums) of (rank sums).
   */
  private void streamOrder(long n) {
    String what = "stream order: fill, 2 x allReduce, copy, no await";
    long bytes = n * 4;
    try (DeviceMemory a = new DeviceMemory(bytes);
        DeviceMemory b = new DeviceMemory(bytes)) {
      b.fill(POISON);
      long h = Cu.handle(stream);
      DeviceMemory.check(
          JCudaDriver.cuMemsetD32Async(a.ptr, Float.floatToRawIntBits(pg.rank() + 1f), n, stream),
          "cuMemsetD32Async");
      DeviceBuffer d = new DeviceBuffer(a.address, pg.deviceIndex(), h, n, DataType.FLOAT32);
      pg.allReduce(d, ReduceOp.SUM);
      pg.allReduce(d, ReduceOp.SUM);
      DeviceMemory.check(
          JCudaDriver.cuMemcpyDtoDAsync(b.ptr, a.ptr, bytes, stream), "cuMemcpyDtoDAsync");
      DeviceMemory.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
      ByteBuffer got = DeviceMemory.host(bytes);
      b.download(got, bytes);
      float want = pg.size() * (pg.size() * (pg.size() + 1) / 2f);
      String bad = null;
      for (int i = 0; i < n && bad == null; i++) {
        if (got.getFloat(i * 4) != want) {
          bad = "element " + i + " is " + got.getFloat(i * 4) + ", expected " + want;
        }
      }
      base.report(what, bad);
    } catch (RuntimeException e) {
      base.report(what, e.toString());
    }
  }

  /**
   * The last rank skips one all-reduce: every other rank's Work must fail with a timeout that names
   * it. Then the last rank is told to go on and the group is closed.
   */
  static int missingRank(CudaProcessGroup pg, Store store, PrintStream out) {
    int last = pg.size() - 1;
    if (pg.rank() == last) {
      store.get("staged-check/missing-rank-seen", Duration.ofMinutes(2));
      return 0;
    }
    try (DeviceMemory a = new DeviceMemory(4096)) {
      DeviceBuffer d = new DeviceBuffer(a.address, pg.deviceIndex(), 0, 1024, DataType.FLOAT32);
      pg.allReduce(d, ReduceOp.SUM).await();
      out.println("missing rank: FAIL the all-reduce finished without rank " + last);
      return 1;
    } catch (DdpTimeoutException e) {
      boolean named = e.missingRanks().contains(last) && e.getMessage().contains("[" + last + "]");
      out.println(
          "missing rank: "
              + (named ? "PASS" : "FAIL")
              + " ("
              + e.getMessage().lines().findFirst().orElse("")
              + ")");
      return named ? 0 : 1;
    } finally {
      store.set("staged-check/missing-rank-seen", new byte[] {1});
    }
  }
}
