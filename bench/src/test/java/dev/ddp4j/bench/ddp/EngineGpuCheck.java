package dev.ddp4j.bench.ddp;

import dev.ddp4j.ReduceOp;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.nccl.NcclProcessGroup;
import dev.ddp4j.collectives.store.FileStore;
import dev.ddp4j.runtime.bucket.BucketPlan;
import dev.ddp4j.runtime.bucket.GradientReducer;
import dev.ddp4j.runtime.cuda.CommStream.Priority;
import dev.ddp4j.runtime.cuda.DeviceGradients;
import dev.ddp4j.runtime.cuda.DeviceTrace;
import dev.ddp4j.runtime.trace.Timeline;
import java.time.Duration;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One rank of {@link DeviceGradientReducerGpuTest}, started by {@link LocalRanks}: {@code reduce}
 * runs two synthetic training steps through the engine and compares the averaged gradient with a
 * float64 host reference element by element; {@code overlap} traces one step on the GPU and checks
 * that the first bucket's all-reduce ran while backward was still running. A second argument {@code
 * nccl} runs it on an nccl group instead of a cuda one. Prints one {@code #} line; exit status 0
 * only if the check held.
 */
public final class EngineGpuCheck {

  private EngineGpuCheck() {}

  public static void main(String[] args) {
    WorkerEnvironment w = LocalRanks.worker();
    Duration timeout = Duration.ofSeconds(60);
    try (FileStore store = LocalRanks.store(timeout)) {
      DeviceGroup pg =
          args.length > 1 && args[1].equals("nccl")
              ? NcclProcessGroup.create(w, store, timeout)
              : CudaProcessGroup.create(w, store, timeout, dev.ddp4j.spi.Settings.process());
      boolean ok = args[0].equals("reduce") ? reduce(pg) : overlap(pg);
      pg.close();
      System.exit(ok ? 0 : 1);
    } catch (RuntimeException e) {
      e.printStackTrace(System.out);
      System.exit(3);
    }
  }

  private static CUstream stream() {
    CUstream s = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return s;
  }

  private static boolean reduce(DeviceGroup pg) {
    // Odd sizes, one layer larger than a bucket: buckets with remainders and of one layer each.
    long[] params = {300_001, 70_000, 1_000_003, 262_144, 5, 655_360};
    long[] ns = {20_000, 20_000, 20_000, 20_000, 20_000, 20_000};
    CUstream s = stream();
    try (SyntheticModel m = new SyntheticModel(pg.deviceIndex(), Cu.handle(s), params, ns)) {
      BucketPlan plan = BucketPlan.of(m.ranges(), 4, 1 << 20, 2 << 20);
      try (GradientReducer engine =
          new GradientReducer(
              new DeviceGradients(
                  pg, plan, m.gradient(), ReduceOp.AVG, DeviceTrace.disabled(), Priority.HIGHEST),
              Timeline.disabled())) {
        for (int step = 0; step < 2; step++) {
          SyntheticDdpBench.step(m, engine, DeviceTrace.disabled(), pg.rank());
        }
        engine.awaitStep(Duration.ofSeconds(30));
        float[] got = m.downloadGradient();
        int n = pg.size();
        double meanScale = (n * (n + 1) / 2.0) / n;
        long mismatches = 0;
        String first = null;
        for (int layer = 0; layer < params.length; layer++) {
          for (long i = 0; i < params[layer]; i++) {
            double want = SyntheticModel.unitGradient(layer, i) * meanScale;
            float g = got[(int) (m.offset(layer) + i)];
            if (Math.abs(g - want) > 1e-6 * Math.max(1, Math.abs(want))) {
              if (first == null) {
                first = "layer " + layer + " element " + i + ": " + g + " != " + want;
              }
              mismatches++;
            }
          }
        }
        System.out.printf(
            "# reduce rank %d/%d (%s): %d elements in %d buckets, %d mismatches%s%n",
            pg.rank(),
            n,
            pg.backend(),
            m.parameters(),
            plan.buckets().size(),
            mismatches,
            first == null ? "" : " (first: " + first + ")");
        return mismatches == 0 && plan.buckets().size() >= 3;
      }
    } finally {
      JCudaDriver.cuStreamDestroy(s);
    }
  }

  private static boolean overlap(DeviceGroup pg) {
    long[] params = new long[8];
    long[] ns = new long[8];
    java.util.Arrays.fill(params, 4_000_000);
    java.util.Arrays.fill(ns, 2_000_000);
    CUstream s = stream();
    try (SyntheticModel m = new SyntheticModel(pg.deviceIndex(), Cu.handle(s), params, ns)) {
      BucketPlan plan = BucketPlan.of(m.ranges(), 4, 1 << 20, 25 << 20);
      DeviceTrace trace = DeviceTrace.enabled();
      try (GradientReducer engine =
          new GradientReducer(
              new DeviceGradients(pg, plan, m.gradient(), ReduceOp.AVG, trace, Priority.HIGHEST),
              Timeline.disabled())) {
        SyntheticDdpBench.step(m, engine, DeviceTrace.disabled(), pg.rank());
        Cu.check(JCudaDriver.cuStreamSynchronize(s), "cuStreamSynchronize");
        pg.barrier().await(timeoutOf());
        trace.start(s);
        SyntheticDdpBench.step(m, engine, trace, pg.rank());
        Overlap o = Overlap.of(trace.spans());
        trace.reset();
        boolean ok = o.firstBucketBeforeBackwardEnds() && o.firstBucketEndUs() < o.backwardEndUs();
        System.out.printf(
            "# overlap rank %d/%d: %s, %d buckets%n",
            pg.rank(), pg.size(), o, plan.buckets().size());
        return ok;
      }
    } finally {
      JCudaDriver.cuStreamDestroy(s);
    }
  }

  private static Duration timeoutOf() {
    return Duration.ofSeconds(60);
  }
}
