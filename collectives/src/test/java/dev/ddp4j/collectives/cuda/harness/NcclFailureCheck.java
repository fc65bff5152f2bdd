package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.nccl.NcclProcessGroup;
import java.io.PrintStream;
import java.time.Duration;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamWaitValue_flags;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The nccl group's failure paths on real GPUs. {@code stuck} (one rank): an all-reduce queued
 * behind a stream that waits on a device word nobody sets must fail after the group's timeout with
 * the abort named, and every later collective must fail saying the group was aborted. {@code
 * missing} (two or more ranks): the last rank skips the second all-reduce, and rank 0's must fail
 * naming it. Each returns the number of failed checks, printing one line per check.
 */
final class NcclFailureCheck {

  private NcclFailureCheck() {}

  static int stuck(NcclProcessGroup pg, PrintStream out) {
    int failed = 0;
    CUstream s = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    try (DeviceMemory gate = new DeviceMemory(16);
        DeviceMemory data = new DeviceMemory(4096 * 4)) {
      gate.fill((byte) 0);
      // The stream waits for the device word; where stream memory operations are not supported,
      // for a host function that waits on a latch instead.
      java.util.concurrent.CountDownLatch hostGate = new java.util.concurrent.CountDownLatch(1);
      int rc =
          JCudaDriver.cuStreamWaitValue32(
              s, gate.ptr, 1, CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ);
      if (rc != 0) {
        out.println("# stuck: cuStreamWaitValue32 returned " + rc + "; a host function waits");
        Cu.check(
            JCudaDriver.cuLaunchHostFunc(
                s,
                data2 -> {
                  try {
                    hostGate.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                null),
            "cuLaunchHostFunc");
      }
      DeviceBuffer b =
          new DeviceBuffer(data.address, pg.deviceIndex(), Cu.handle(s), 4096, DataType.FLOAT32);
      long t0 = System.nanoTime();
      Work w = pg.allReduce(b, ReduceOp.SUM);
      String timedOut;
      try {
        w.await(pg.timeout().plusSeconds(30));
        timedOut = "the stuck all-reduce completed";
      } catch (DdpTimeoutException e) {
        double s1 = (System.nanoTime() - t0) / 1e9;
        out.println("# stuck: " + e.getMessage() + " (after " + String.format("%.1f", s1) + " s)");
        timedOut =
            !e.getMessage().contains("ncclCommAbort")
                ? "the message does not name the abort"
                : s1 < pg.timeout().toSeconds() - 0.5 || s1 > pg.timeout().toSeconds() + 10
                    ? "it failed after " + s1 + " s, not after the group's timeout"
                    : null;
      }
      failed += report(out, "stuck all-reduce fails after the timeout, aborted", timedOut);
      // Let the stream go on, so that the queued NCCL launch runs before its memory is freed.
      Cu.check(JCudaDriver.cuMemsetD32(gate.ptr, 1, 1), "cuMemsetD32");
      hostGate.countDown();
      Cu.check(JCudaDriver.cuStreamSynchronize(s), "cuStreamSynchronize");
      String later;
      try {
        pg.allReduce(b, ReduceOp.SUM).await();
        later = "a collective after the abort succeeded";
      } catch (DdpException e) {
        later = e.getMessage().contains("was aborted") ? null : "unexpected: " + e.getMessage();
      }
      failed += report(out, "later collectives fail naming the abort", later);
    } finally {
      JCudaDriver.cuStreamDestroy(s);
    }
    String closed = null;
    try {
      pg.close();
    } catch (RuntimeException e) {
      closed = "close failed: " + e;
    }
    return failed + report(out, "an aborted group closes", closed);
  }

  static int missing(NcclProcessGroup pg, PrintStream out) {
    CUstream s = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    int last = pg.size() - 1;
    int failed = 0;
    try (DeviceMemory data = new DeviceMemory(4096 * 4)) {
      DeviceBuffer b =
          new DeviceBuffer(data.address, pg.deviceIndex(), Cu.handle(s), 4096, DataType.FLOAT32);
      pg.allReduce(b, ReduceOp.SUM).await();
      if (pg.rank() == 0) {
        String named;
        try {
          pg.allReduce(b, ReduceOp.SUM).await(pg.timeout().plusSeconds(30));
          named = "the all-reduce without rank " + last + " completed";
        } catch (DdpTimeoutException e) {
          out.println("# missing: " + e.getMessage());
          named =
              e.missingRanks().equals(java.util.List.of(last))
                  ? null
                  : "missing ranks " + e.missingRanks() + ", expected [" + last + "]";
        }
        failed += report(out, "a collective one rank skipped names it", named);
      } else if (pg.rank() == last) {
        // Skip it; wait until rank 0 gave up (its abort record reaches this rank's watchdog only
        // while a collective is pending, so none is: sleep past the timeout instead).
        sleep(pg.timeout().plusSeconds(5));
      } else {
        try {
          pg.allReduce(b, ReduceOp.SUM).await(pg.timeout().plusSeconds(30));
        } catch (DdpException e) {
          out.println("# rank " + pg.rank() + ": " + e.getMessage());
        }
      }
    } finally {
      JCudaDriver.cuStreamDestroy(s);
    }
    try {
      pg.close();
    } catch (RuntimeException e) {
      out.println("# rank " + pg.rank() + ": close: " + e.getMessage());
    }
    return failed;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int report(PrintStream out, String what, String problem) {
    out.printf("%-52s %s%n", what, problem == null ? "PASS" : "FAIL: " + problem);
    return problem == null ? 0 : 1;
  }
}
