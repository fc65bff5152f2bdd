package dev.ddp4j.collectives.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.schedule.Schedule;
import dev.ddp4j.collectives.schedule.ScheduleChecker;
import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.Topology;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PlanCompilerTest {

  private static void checkEveryAlgorithm(Plan plan, long count, long maxStep) {
    for (Algorithm a : plan.table().get(0).timeUs().keySet()) {
      Schedule s = PlanCompiler.allReduce(plan, a, count, maxStep);
      assertThat(s.algorithm()).isEqualTo(a.id());
      ScheduleChecker.check(s);
    }
  }

  @Test
  void shouldCompileEveryApplicableAlgorithmOfEveryFixtureIntoACorrectSchedule() {
    for (String name : Fixtures.ALL) {
      Topology t = Fixtures.load(name);
      Plan plan = Planner.plan(t, t.deviceCount(), PlannerOptions.defaults(true));
      for (long count : new long[] {1, 3, 64, 1000}) {
        checkEveryAlgorithm(plan, count, 7);
      }
    }
  }

  @Test
  void shouldCompileTheOtherCollectivesOverThePlansRings() {
    Topology t = Fixtures.load(Fixtures.DGX1_V100_XML);
    Plan plan = Planner.plan(t, 8, PlannerOptions.defaults(true));
    ScheduleChecker.check(PlanCompiler.broadcast(plan, 5, 301, 16));
    ScheduleChecker.check(PlanCompiler.allGather(plan, 37, 16));
    ScheduleChecker.check(PlanCompiler.reduceScatter(plan, 37, 16));
  }

  @Test
  void shouldCompileHierarchicalAcrossHosts() {
    Topology host = Fixtures.load(Fixtures.A100_4);
    Topology job = MultiHost.join(List.of(host, host, host));
    Plan plan = Planner.plan(job, job.deviceCount(), PlannerOptions.defaults(true));
    assertThat(plan.islands()).hasSize(3);
    ScheduleChecker.check(PlanCompiler.allReduce(plan, Algorithm.HIERARCHICAL, 997, 5));
  }

  @Property(tries = 40)
  void shouldCompileCorrectSchedulesOnRandomMachines(
      @ForAll long seed,
      @ForAll @IntRange(min = 2, max = 7) int gpus,
      @ForAll @IntRange(min = 1, max = 300) int count,
      @ForAll @IntRange(min = 1, max = 64) int maxStep) {
    Topology t = RandomTopologies.generate(seed, gpus);
    Plan plan = Planner.plan(t, gpus, PlannerOptions.defaults(true));
    checkEveryAlgorithm(plan, count, maxStep);
  }

  @Property(tries = 25)
  void shouldCompileCorrectSchedulesAcrossRandomHosts(
      @ForAll long seed,
      @ForAll @IntRange(min = 2, max = 3) int hosts,
      @ForAll @IntRange(min = 1, max = 4) int gpusPerHost,
      @ForAll @IntRange(min = 1, max = 200) int count) {
    Topology host = RandomTopologies.generate(seed, Math.max(2, gpusPerHost));
    Topology job = MultiHost.join(java.util.Collections.nCopies(hosts, host));
    Plan plan = Planner.plan(job, job.deviceCount(), PlannerOptions.defaults(true));
    assertThat(plan.islands()).hasSize(hosts);
    checkEveryAlgorithm(plan, count, 16);
  }
}
