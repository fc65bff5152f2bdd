package dev.ddp4j.collectives.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.collectives.plan.GpuOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class GlobalTopologyTest {

  @Test
  void shouldBuildTheSameJobTopologyOnEveryRankFromThePublishedViews() {
    String a100 = GlobalTopology.publish(Fixtures.load(Fixtures.A100_4));
    String h200 = GlobalTopology.publish(Fixtures.load(Fixtures.H200_2));
    Topology onRank0 = GlobalTopology.combine(List.of(a100, h200));
    Topology onRank5 = GlobalTopology.combine(List.of(a100, h200));
    assertThat(onRank0.deviceCount()).isEqualTo(6);
    assertThat(onRank0.route(4, 5).label()).isEqualTo("NV18");
    assertThat(onRank0.route(0, 4).label()).isEqualTo("NET");
    GlobalTopology.checkAgrees(onRank5, TopologyHash.sha256(onRank0), 5);
  }

  @Test
  void shouldNameBothHashesWhenARankSeesADifferentMachine() {
    Topology mine = Fixtures.load(Fixtures.PCIE_4);
    String rank0 = TopologyHash.sha256(Fixtures.load(Fixtures.A100_4));
    assertThatThrownBy(() -> GlobalTopology.checkAgrees(mine, rank0, 3))
        .hasMessageContaining("rank 3 built topology")
        .hasMessageContaining(rank0.substring(0, 12));
  }

  @Test
  void shouldSpellTheGpuOrderAsCudaVisibleDevices() {
    Topology t = Fixtures.load(Fixtures.DGX1_V100_XML);
    assertThat(GpuOrder.cudaVisibleDevices(t, GpuOrder.of(t, 8))).isEqualTo("0,3,2,1,5,6,7,4");
  }
}
