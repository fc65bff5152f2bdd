package dev.ddp4j.collectives.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.Topology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlannerTest {

  private static final long MIB_256 = 256L << 20;

  private static Plan plan(String fixture, Map<String, String> env) {
    Topology t = Fixtures.load(fixture);
    return Planner.plan(
        t, t.deviceCount(), PlannerOptions.fromEnvironment(dev.ddp4j.spi.Settings.of(env), true));
  }

  /**
   * The seed's box: NVLink pairs (0,1) and (2,3), the pairs joined across the sockets. Any flat
   * ring crosses the socket link with 2(n-1)/n = 1.5 S bytes per direction; the hierarchical
   * schedule with S (the least any all-reduce can do across that cut), so 1.5x is its ceiling, less
   * the NVLink phases; the model predicts about 1.4x.
   */
  @Test
  void shouldPickHierarchicalOnTheA100BoxAt256MiB() {
    Plan p = plan(Fixtures.A100_4, Map.of());
    Prediction at = p.predictionFor(MIB_256);
    assertThat(at.chosen()).isEqualTo(Algorithm.HIERARCHICAL);
    double speedup = at.timeUs().get(Algorithm.RING) / at.timeUs().get(Algorithm.HIERARCHICAL);
    assertThat(speedup).isGreaterThan(1.35).isLessThanOrEqualTo(1.5);
    assertThat(p.islands()).hasSize(2);
    assertThat(p.warnings()).anyMatch(w -> w.contains("hierarchical schedule (2 islands of 2)"));
    assertThat(p.warnings()).anyMatch(w -> w.contains("crosses PCIe (SYS)"));
  }

  @Test
  void shouldRunTheH200PairOnManyNvlinkChannelsForLargeSizes() {
    Plan p = plan(Fixtures.H200_2, Map.of());
    Prediction big = p.predictionFor(MIB_256);
    // One-shot, as measured on 2 x H200 (326 GB/s, against two-shot's 280-289; CostParams.GPU).
    assertThat(big.chosen()).isEqualTo(Algorithm.ONESHOT);
    assertThat(big.busBwGbps(Algorithm.ONESHOT)).isGreaterThan(300);
    assertThat(p.rings().size()).isGreaterThan(8);
    assertThat(p.algorithmFor(8)).isEqualTo(Algorithm.ONESHOT);
  }

  @Test
  void shouldChooseLatencyAlgorithmsForSmallSizesAndBandwidthOnesForLargeOnNvSwitch() {
    Plan p = plan(Fixtures.DGX_H100_8, Map.of());
    assertThat(p.algorithmFor(8)).isIn(Algorithm.ONESHOT, Algorithm.TREE);
    // On NVSwitch every pair is one switch hop: direct two-shot moves as few bytes as the ring.
    Algorithm big = p.algorithmFor(MIB_256);
    assertThat(big).isIn(Algorithm.RING, Algorithm.TWOSHOT);
    // Two-shot's and the ring's pushes reach 0.62 of NVLink as fitted (CostParams.GPU).
    assertThat(p.predictionFor(MIB_256).busBwGbps(big)).isGreaterThan(250);
  }

  @Test
  void shouldReorderTheDgx1SoEveryRingHopIsNvlink() {
    Topology t = Fixtures.load(Fixtures.DGX1_V100_XML);
    int[] order = GpuOrder.of(t, 8);
    for (int i = 0; i < 8; i++) {
      assertThat(t.route(order[i], order[(i + 1) % 8]).label()).startsWith("NV");
    }
    assertThat(GpuOrder.of(Fixtures.load(Fixtures.A100_4), 4)).containsExactly(0, 1, 2, 3);
  }

  @Test
  void shouldObeyForcedAlgorithmAndChannelBoundsFromTheEnvironment() {
    Plan forced = plan(Fixtures.A100_4, Map.of("NCCL_ALGO", "Ring", "DDP4J_NCHANNELS", "3"));
    assertThat(forced.table()).allMatch(pr -> pr.chosen() == Algorithm.RING);
    assertThat(forced.rings()).hasSize(3);
    Plan bounded = plan(Fixtures.H200_2, Map.of("DDP4J_MAX_NCHANNELS", "2"));
    assertThat(bounded.rings()).hasSize(2);
    Plan inapplicable = plan(Fixtures.H200_2, Map.of("DDP4J_ALGO", "hierarchical"));
    assertThat(inapplicable.warnings()).anyMatch(w -> w.contains("does not apply"));
    assertThatThrownBy(() -> plan(Fixtures.H200_2, Map.of("DDP4J_ALGO", "nvls")))
        .hasMessageContaining("DDP4J_ALGO=nvls")
        .hasMessageContaining("ring, tree, oneshot, twoshot, hierarchical");
    assertThatThrownBy(() -> plan(Fixtures.H200_2, Map.of("DDP4J_NCHANNELS", "0")))
        .hasMessageContaining("DDP4J_NCHANNELS=0");
  }

  @Test
  void shouldGoHierarchicalAcrossHostsForLargeSizes() {
    Topology host = Fixtures.load(Fixtures.DGX_H100_8);
    Topology job = MultiHost.join(List.of(host, host, host, host));
    Plan p = Planner.plan(job, job.deviceCount(), PlannerOptions.defaults(true));
    assertThat(p.islands()).hasSize(4);
    assertThat(p.algorithmFor(MIB_256)).isEqualTo(Algorithm.HIERARCHICAL);
    // Channels leave each host through different GPUs: the hops between hosts differ.
    assertThat(p.rings().get(0)[7]).isNotEqualTo(p.rings().get(2)[7]);
  }

  @Test
  void shouldProduceTheSamePlanTwice() {
    Plan a = plan(Fixtures.DGX1_V100_XML, Map.of());
    Plan b = plan(Fixtures.DGX1_V100_XML, Map.of());
    assertThat(a.rings()).usingRecursiveComparison().isEqualTo(b.rings());
    assertThat(a.topologyHash()).isEqualTo(b.topologyHash());
  }

  @Test
  void shouldPrintOneRouteLinePerChannelAndHop() {
    Topology t = Fixtures.load(Fixtures.A100_4);
    Plan p = Planner.plan(t, 4, PlannerOptions.defaults(true));
    List<String> lines = RouteLines.of(t, p);
    assertThat(lines).hasSize(4 * p.rings().size());
    assertThat(lines)
        .contains("Channel 00/02 : 0[0] -> 1[1] via P2P/IPC over NVL (NV12, 300 GB/s)");
    assertThat(lines).contains("Channel 00/02 : 1[1] -> 2[2] via P2P/IPC over SYS (20 GB/s)");
    assertThat(RouteLines.ofRank(t, p, 3)).hasSize(p.rings().size());
  }
}
