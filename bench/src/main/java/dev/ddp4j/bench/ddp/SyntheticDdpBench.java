package dev.ddp4j.bench.ddp;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import dev.ddp4j.runtime.bucket.BucketPlan;
import dev.ddp4j.runtime.bucket.GradientReducer;
import dev.ddp4j.runtime.cuda.DeviceGradients;
import dev.ddp4j.runtime.cuda.DeviceTrace;
import dev.ddp4j.runtime.trace.Timeline;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One rank of {@code launcher.jar bench ddp}: joins the job with {@link Ddp#init()} (the cuda
 * backend), builds a {@link SyntheticModel}, and times training steps (backward, then SGD) with and
 * without the device bucket engine's ({@link DeviceGradients}) all-reduce; rank 0 prints the
 * calibration of the spin kernel, both step times and the overhead, and where the first bucket
 * started relative to the end of backward in a traced step (written as a Chrome trace when {@code
 * --trace} is given).
 *
 * <p>Arguments: {@code --layers SIZES --backward-us TIMES [--steps N] [--trace FILE]
 * [--first-bucket-mb MIB] [--bucket-cap-mb MIB] [--comm-priority highest|normal]}; see {@link
 * SyntheticSpec}.
 */
public final class SyntheticDdpBench {

  private SyntheticDdpBench() {}

  public static void main(String[] args) throws Exception {
    SyntheticSpec spec = SyntheticSpec.parse(List.of(args));
    try (ProcessGroup pg = Ddp.init()) {
      if (!(pg instanceof HostDeviceGroup both && both.device() instanceof CudaProcessGroup cuda)) {
        throw new IllegalStateException(
            "bench ddp runs on the cuda backend, got "
                + pg.backend()
                + " (set DDP4J_BACKEND=cuda)");
      }
      run(cuda, spec);
    }
  }

  static void run(CudaProcessGroup pg, SyntheticSpec spec) throws Exception {
    Cu.check(JCudaDriver.cuCtxSetCurrent(pg.context()), "cuCtxSetCurrent");
    CUstream compute = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(compute, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    boolean lead = pg.rank() == 0;
    try (SyntheticModel model =
        new SyntheticModel(
            pg.deviceIndex(), Cu.handle(compute), spec.layerParams(), spec.backwardNs())) {
      if (lead) {
        System.out.printf(
            Locale.ROOT,
            "# bench ddp: %d ranks, %d layers, %.1f M params, backward %.0f us%n",
            pg.size(),
            model.layers(),
            model.parameters() / 1e6,
            spec.totalBackwardNs() / 1e3);
        calibrate(model, spec, compute);
      }
      int steps = spec.steps();
      double plainMs = time(model, null, steps, compute, pg);
      DeviceTrace trace = spec.traceFile() != null ? DeviceTrace.enabled() : DeviceTrace.disabled();
      BucketPlan plan =
          BucketPlan.of(model.ranges(), 4, spec.firstBucketBytes(), spec.bucketCapBytes());
      try (GradientReducer engine =
          new GradientReducer(
              new DeviceGradients(
                  pg, plan, model.gradient(), ReduceOp.AVG, trace, spec.commPriority()),
              Timeline.disabled())) {
        double ddpMs = time(model, engine, steps, compute, pg);
        if (lead) {
          System.out.printf(
              Locale.ROOT,
              "RESULT layers=%d params=%d backward_us=%.0f buckets=%d bucket_cap_mb=%.1f"
                  + " comm_priority=%s no_allreduce_ms=%.3f ddp_ms=%.3f overhead_pct=%.2f%n",
              model.layers(),
              model.parameters(),
              spec.totalBackwardNs() / 1e3,
              plan.buckets().size(),
              spec.bucketCapBytes() / (double) (1 << 20),
              spec.commPriority().name().toLowerCase(Locale.ROOT),
              plainMs,
              ddpMs,
              100 * (ddpMs - plainMs) / plainMs);
        }
        if (trace.isEnabled()) {
          traced(model, engine, trace, compute, pg, spec.traceFile());
        }
      }
    } finally {
      JCudaDriver.cuStreamDestroy(compute);
    }
  }

  /** Times each layer's spin kernel alone with events, for the calibration table. */
  private static void calibrate(SyntheticModel model, SyntheticSpec spec, CUstream compute) {
    CUevent a = new CUevent();
    CUevent b = new CUevent();
    JCudaDriver.cuEventCreate(a, 0);
    JCudaDriver.cuEventCreate(b, 0);
    float[] ms = new float[1];
    for (int layer = 0; layer < model.layers(); layer++) {
      model.launchSpin(layer, spec.backwardNs()[layer], 1f);
      double best = Double.MAX_VALUE;
      for (int rep = 0; rep < 5; rep++) {
        JCudaDriver.cuEventRecord(a, compute);
        model.launchSpin(layer, spec.backwardNs()[layer], 1f);
        JCudaDriver.cuEventRecord(b, compute);
        JCudaDriver.cuEventSynchronize(b);
        JCudaDriver.cuEventElapsedTime(ms, a, b);
        best = Math.min(best, ms[0] * 1e3);
      }
      System.out.printf(
          Locale.ROOT,
          "CALIBRATION ddp4j spin layer %d: asked %.1f us, measured %.1f us%n",
          layer,
          spec.backwardNs()[layer] / 1e3,
          best);
    }
    JCudaDriver.cuEventDestroy(a);
    JCudaDriver.cuEventDestroy(b);
  }

  /** Mean wall time per step over {@code steps} steps after warm-up, ranks started together. */
  private static double time(
      SyntheticModel model,
      GradientReducer engine,
      int steps,
      CUstream compute,
      CudaProcessGroup pg) {
    int warmup = Math.max(3, steps / 5);
    for (int i = 0; i < warmup; i++) {
      step(model, engine, DeviceTrace.disabled(), pg.rank());
    }
    Cu.check(JCudaDriver.cuStreamSynchronize(compute), "cuStreamSynchronize");
    pg.barrier().await(Duration.ofSeconds(60));
    long t0 = System.nanoTime();
    for (int i = 0; i < steps; i++) {
      step(model, engine, DeviceTrace.disabled(), pg.rank());
    }
    Cu.check(JCudaDriver.cuStreamSynchronize(compute), "cuStreamSynchronize");
    return (System.nanoTime() - t0) / 1e6 / steps;
  }

  static void step(SyntheticModel model, GradientReducer engine, DeviceTrace trace, int rank) {
    if (engine != null) {
      engine.beginStep();
    }
    model.backward(engine, rank + 1, trace);
    if (engine != null) {
      engine.finishStep();
    }
    model.sgdStep(1e-3f);
  }

  private static void traced(
      SyntheticModel model,
      GradientReducer engine,
      DeviceTrace trace,
      CUstream compute,
      CudaProcessGroup pg,
      Path file)
      throws Exception {
    Cu.check(JCudaDriver.cuStreamSynchronize(compute), "cuStreamSynchronize");
    pg.barrier().await(Duration.ofSeconds(60));
    trace.start(compute);
    step(model, engine, trace, pg.rank());
    List<DeviceTrace.Span> spans = trace.spans();
    Overlap o = Overlap.of(spans);
    Path out = file.resolveSibling(file.getFileName() + ".rank" + pg.rank() + ".json");
    DeviceTrace.write(out, pg.rank(), spans);
    if (pg.rank() == 0) {
      System.out.printf(
          Locale.ROOT,
          "TRACE %s: backward %.1f..%.1f us, first bucket all-reduce %.1f..%.1f us, last bucket ends"
              + " %.1f us: first all-reduce starts %s backward ends%n",
          out,
          o.backwardStartUs(),
          o.backwardEndUs(),
          o.firstBucketStartUs(),
          o.firstBucketEndUs(),
          o.lastBucketEndUs(),
          o.firstBucketBeforeBackwardEnds() ? "BEFORE" : "AFTER");
    }
    trace.reset();
  }
}
