package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.DataType;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanAgreement;
import dev.ddp4j.collectives.plan.PlanCompiler;
import dev.ddp4j.collectives.plan.PlanSummary;
import dev.ddp4j.collectives.plan.Planner;
import dev.ddp4j.collectives.plan.Prediction;
import dev.ddp4j.collectives.schedule.ScheduleChecker;
import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.NcclTopoXmlWriter;
import dev.ddp4j.collectives.topology.Topology;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Cuda groups of 9 to 32 ranks on one host, without a GPU: 16 GPUs on NVSwitch (HGX-2 / DGX-2) and
 * up to 32 ranks sharing one H200 under MPS. What they plan per size, that every schedule they can
 * run passes the checker, and that the channels keep every sharing rank's blocks resident.
 */
class CudaManyRanksPlanTest {

  /** One H200: 132 SMs, 2 resident blocks each of the one-shot kernels, 1 of the ring's. */
  private static final Map<Algorithm, Long> H200 =
      Map.of(
          Algorithm.ONESHOT, 264L,
          Algorithm.TWOSHOT, 264L,
          Algorithm.LL, 264L,
          Algorithm.RING, 132L);

  private static int[] identity(int n) {
    int[] d = new int[n];
    for (int i = 0; i < n; i++) {
      d[i] = i;
    }
    return d;
  }

  /** The plan a cuda group makes with {@code env} under the resident bound {@code cap}. */
  private static Plan plan(Topology t, Map<String, String> env, int cap) {
    PlanAgreement.Request r =
        GpuPlanning.request(GpuPlanning.options(dev.ddp4j.spi.Settings.of(env), cap), true);
    return Planner.plan(t, identity(t.deviceCount()), r.options(), r.supported(), r.allowed());
  }

  /** Every algorithm the plan chooses, and the ring, compiles to a schedule the checker accepts. */
  private static void assertSchedulesCheck(Plan p) {
    Set<Algorithm> run = EnumSet.of(Algorithm.RING);
    p.table().forEach(row -> run.add(row.chosen()));
    for (Algorithm a : run) {
      for (long count : new long[] {0, 1, 7, 4099}) {
        ScheduleChecker.check(PlanCompiler.allReduce(p, a, count, 4, 1024));
      }
    }
    for (long block : new long[] {1, 33}) {
      ScheduleChecker.check(PlanCompiler.reduceScatter(p, block, 1024));
      ScheduleChecker.check(PlanCompiler.allGather(p, block, 1024));
    }
    ScheduleChecker.check(PlanCompiler.broadcast(p, p.ranks() - 1, 4099, 1024));
  }

  /**
   * At sizes where bandwidth rules, no algorithm that pushes the whole buffer to every peer: with n
   * ranks one-shot, LL and the copy engine move n - 1 times what two-shot and the ring move.
   */
  private static void assertBandwidthBoundSizesShareTheBuffer(Plan p) {
    for (Prediction row : p.table()) {
      if (row.bytes() >= 16L << 20) {
        assertThat(row.chosen()).as("%d B", row.bytes()).isIn(Algorithm.TWOSHOT, Algorithm.RING);
        double ring = row.timeUs().get(Algorithm.RING);
        assertThat(row.timeUs().get(row.chosen())).isLessThanOrEqualTo(ring);
      }
    }
  }

  @Test
  void shouldPlanSixteenNvSwitchGpusWithLlSmallAndTheBufferSharedLarge() {
    Plan p = plan(Fixtures.load(Fixtures.DGX2_V100_16), Map.of(), 64);
    assertThat(p.ranks()).isEqualTo(16);
    assertThat(p.directOk()).as("every pair NV6 through the switches").isTrue();
    assertThat(p.islands()).as("one switch: no islands").isEmpty();
    assertThat(p.algorithmFor(8)).isEqualTo(Algorithm.LL);
    assertThat(p.rings().get(0)).hasSize(16);
    assertThat(p.table())
        .extracting(Prediction::chosen)
        .doesNotContain(Algorithm.TREE, Algorithm.HIERARCHICAL, Algorithm.COPYENGINE);
    assertBandwidthBoundSizesShareTheBuffer(p);
    assertSchedulesCheck(p);
  }

  @Test
  void shouldPlanTheSameSixteenGpusAfterTheirTopologyCrossedTheStoreAsNcclXml() {
    // PlanAgreement hands each host's topology to the other ranks as NCCL XML.
    Topology t = Fixtures.load(Fixtures.DGX2_V100_16);
    Topology back = NcclTopoXmlReader.parse(NcclTopoXmlWriter.write(t));
    assertThat(PlanSummary.bySize(plan(back, Map.of(), 64)))
        .isEqualTo(PlanSummary.bySize(plan(t, Map.of(), 64)))
        .isEqualTo("ll 8 B-128 KiB, oneshot 256 KiB, twoshot 512 KiB-4 GiB");
  }

  @Test
  void shouldRingSixteenGpusAtEverySizeWhenTheRingIsForced() {
    Plan p = plan(Fixtures.load(Fixtures.DGX2_V100_16), Map.of("DDP4J_ALGO", "ring"), 64);
    assertThat(p.table()).extracting(Prediction::chosen).containsOnly(Algorithm.RING);
    assertSchedulesCheck(p);
  }

  @Test
  void shouldSplitOneH200AmongUpTo32RanksKeepingAChannelEach() {
    assertThat(GpuPlanning.residentChannels(H200, 9)).isEqualTo(14);
    assertThat(GpuPlanning.residentChannels(H200, 12)).isEqualTo(11);
    assertThat(GpuPlanning.residentChannels(H200, 16)).isEqualTo(8);
    // 32 x 4 ring blocks = 128 of 132; 32 x 4 one-shot channels x 2 blocks = 256 of 264.
    assertThat(GpuPlanning.residentChannels(H200, 32)).isEqualTo(4);
    assertThat(GpuPlanning.residentChannels(H200, 132)).isEqualTo(1);
  }

  @Test
  void shouldRefuseMoreRanksOnAGpuThanItKeepsBlocksOfTheirKernelsResident() {
    // A 20-SM GPU keeping one ring block per SM: 32 sharing ranks would spin on blocks never run.
    Map<Algorithm, Long> small = Map.of(Algorithm.ONESHOT, 80L, Algorithm.RING, 20L);
    assertThat(GpuPlanning.residentChannels(small, 20)).isEqualTo(1);
    assertThatThrownBy(() -> GpuPlanning.residentChannels(small, 32))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("32 ranks share one GPU")
        .hasMessageContaining("keeps 20 blocks of the ring kernels")
        .hasMessageContaining("run at most 20 ranks on that GPU");
  }

  @Test
  void shouldPlan32RanksSharingOneH200WithinTheirResidentBlocks() {
    int cap = GpuPlanning.residentChannels(H200, 32);
    Plan p = plan(GpuPlanning.sharedGpus(32), Map.of(), cap);
    assertThat(p.ranks()).isEqualTo(32);
    assertThat(p.directOk()).isTrue();
    assertThat(p.wideChannels()).isLessThanOrEqualTo(cap);
    assertThat(p.rings().size()).isBetween(1, cap);
    assertThat(p.algorithmFor(8)).isEqualTo(Algorithm.LL);
    assertBandwidthBoundSizesShareTheBuffer(p);
    // Every launch the plan makes, of every size, fits the GPU with all 32 ranks' blocks at once.
    PlanChooser chooser = new PlanChooser(p);
    for (Prediction row : p.table()) {
      AllReduceTuning t = chooser.choose(row.bytes(), 32, DataType.FLOAT32);
      long resident = H200.get(t.algorithm() == Algorithm.ONESHOT ? t.algorithm() : Algorithm.RING);
      assertThat(32L * t.gridBlocks())
          .as("%s at %d B", t, row.bytes())
          .isLessThanOrEqualTo(resident);
    }
    AllReduceTuning ring = chooser.chooseRing(1L << 30, 32, DataType.FLOAT32);
    assertThat(32L * ring.gridBlocks()).isLessThanOrEqualTo(H200.get(Algorithm.RING));
    assertSchedulesCheck(p);
    assertSchedulesCheck(plan(GpuPlanning.sharedGpus(32), Map.of("DDP4J_ALGO", "ring"), cap));
  }

  @Test
  void shouldPlanNineAndTwelveRanksSharingOneGpu() {
    for (int n : new int[] {9, 12}) {
      int cap = GpuPlanning.residentChannels(H200, n);
      Plan p = plan(GpuPlanning.sharedGpus(n), Map.of(), cap);
      assertThat(p.ranks()).isEqualTo(n);
      assertThat(p.wideChannels()).isLessThanOrEqualTo(cap);
      assertBandwidthBoundSizesShareTheBuffer(p);
      assertSchedulesCheck(p);
    }
  }
}
