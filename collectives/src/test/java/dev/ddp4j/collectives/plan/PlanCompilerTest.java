package dev.ddp4j.collectives.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.schedule.Schedule;
import dev.ddp4j.collectives.schedule.ScheduleChecker;
import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.testing.RandomCases;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PlanCompilerTest {

  private static void checkEveryAlgorithm(Plan plan, long count, long maxStep) {
    for (Algorithm a : plan.table().get(0).timeUs().keySet()) {
      Schedule s = PlanCompiler.allReduce(plan, a, count, 4, maxStep);
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
    ScheduleChecker.check(PlanCompiler.allReduce(plan, Algorithm.HIERARCHICAL, 997, 4, 5));
  }

  static Stream<Arguments> randomMachines() {
    return RandomCases.of(
        4000,
        40,
        d -> new Object[] {d.anyLong(), d.between(2, 7), d.between(1, 300), d.between(1, 64)});
  }

  @ParameterizedTest(name = "[{index}] seed={0} gpus={1} count={2} maxStep={3}")
  @MethodSource("randomMachines")
  void shouldCompileCorrectSchedulesOnRandomMachines(long seed, int gpus, int count, int maxStep) {
    Topology t = RandomTopologies.generate(seed, gpus);
    Plan plan = Planner.plan(t, gpus, PlannerOptions.defaults(true));
    checkEveryAlgorithm(plan, count, maxStep);
  }

  static Stream<Arguments> randomHosts() {
    return RandomCases.of(
        5000,
        25,
        d -> new Object[] {d.anyLong(), d.between(2, 3), d.between(1, 4), d.between(1, 200)});
  }

  @ParameterizedTest(name = "[{index}] seed={0} hosts={1} gpusPerHost={2} count={3}")
  @MethodSource("randomHosts")
  void shouldCompileCorrectSchedulesAcrossRandomHosts(
      long seed, int hosts, int gpusPerHost, int count) {
    Topology host = RandomTopologies.generate(seed, Math.max(2, gpusPerHost));
    Topology job = MultiHost.join(java.util.Collections.nCopies(hosts, host));
    Plan plan = Planner.plan(job, job.deviceCount(), PlannerOptions.defaults(true));
    assertThat(plan.islands()).hasSize(hosts);
    checkEveryAlgorithm(plan, count, 16);
  }
}
