package dev.ddp4j.bench.plan;

import dev.ddp4j.collectives.plan.BruteForceAccess;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.Planner;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.Topology;
import java.util.Arrays;
import java.util.Collections;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Planning time, the budget side by side: under 100 ms for 8 GPUs, under 2 s for 64 hosts x
 * 8 GPUs. Each run plans over a freshly built topology (routes not cached); the first run is a cold
 * JVM, the rest are reported as a median. The 8-GPU ring search is also timed against brute force
 * over all 5040 rings, its reference. Not a test: run it by hand with {@code
 * bench/planning-bench.sh [RUNS]} (docs/topology.md).
 */
public final class PlanningBench {

  private PlanningBench() {}

  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    bench("DGX H100, 8 GPUs on NVSwitch", () -> Fixtures.load(Fixtures.DGX_H100_8), 100, runs);
    bench(
        "DGX-1 V100, 8 GPUs hybrid cube mesh",
        () -> Fixtures.load(Fixtures.DGX1_V100_XML),
        100,
        runs);
    bench("4x A100, NVLink pairs", () -> Fixtures.load(Fixtures.A100_4), 100, runs);
    bench("64 hosts x DGX H100 (512 GPUs)", () -> hosts(Fixtures.DGX_H100_8, 64), 2000, runs);
    bench("64 hosts x DGX-1 V100 (512 GPUs)", () -> hosts(Fixtures.DGX1_V100_XML, 64), 2000, runs);
    Topology dgx1 = Fixtures.load(Fixtures.DGX1_V100_XML);
    double search = medianMs(() -> BruteForceAccess.exactRing(dgx1, 8), runs);
    double brute = medianMs(() -> BruteForceAccess.bruteForceRing(dgx1, 8), runs);
    System.out.printf(
        Locale.ROOT,
        "ring search on DGX-1: branch and bound %.2f ms, brute force %.2f ms, ratio %.1fx%n",
        search,
        brute,
        brute / search);
  }

  private static Topology hosts(String fixture, int count) {
    return MultiHost.join(Collections.nCopies(count, Fixtures.load(fixture)));
  }

  private static void bench(String name, Supplier<Topology> topo, double budgetMs, int runs) {
    Topology first = topo.get();
    long t0 = System.nanoTime();
    plan(first);
    double firstMs = (System.nanoTime() - t0) / 1e6;
    double[] ms = new double[runs];
    for (int i = 0; i < runs; i++) {
      Topology fresh = topo.get();
      long s0 = System.nanoTime();
      plan(fresh);
      ms[i] = (System.nanoTime() - s0) / 1e6;
    }
    Arrays.sort(ms);
    double median = ms[runs / 2];
    System.out.printf(
        Locale.ROOT,
        "%-40s first %8.1f ms, median %8.1f ms, budget %6.0f ms, median/budget %.3f%n",
        name,
        firstMs,
        median,
        budgetMs,
        median / budgetMs);
  }

  private static Plan plan(Topology t) {
    return Planner.plan(t, t.deviceCount(), PlannerOptions.defaults(true));
  }

  private static double medianMs(Runnable r, int runs) {
    double[] ms = new double[runs];
    for (int i = 0; i < runs; i++) {
      long t0 = System.nanoTime();
      r.run();
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    Arrays.sort(ms);
    return ms[runs / 2];
  }
}
