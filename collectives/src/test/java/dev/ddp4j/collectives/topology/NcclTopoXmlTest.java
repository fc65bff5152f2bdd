package dev.ddp4j.collectives.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NcclTopoXmlTest {

  @Test
  void shouldReadTheDgx1HybridCubeMeshWithItsUnevenNvlinkCounts() {
    Topology t = Fixtures.load(Fixtures.DGX1_V100_XML);
    assertThat(t.deviceCount()).isEqualTo(8);
    assertThat(t.route(0, 3).label()).isEqualTo("NV2");
    assertThat(t.route(0, 3).gbps()).isEqualTo(50.0);
    assertThat(t.route(0, 1).label()).isEqualTo("NV1");
    assertThat(t.route(0, 5).label()).isEqualTo("SYS");
    assertThat(t.route(0, 5).gbps()).isEqualTo(Bandwidths.pcieGbps(8.0, 16));
    assertThat(t.device(5).attr("busid", "")).isEqualTo("0000:86:00.0");
    assertThat(t.nodes()).anyMatch(n -> n.type() == NodeType.NIC && n.name().equals("mlx5_0"));
  }

  @Test
  void shouldKeepEveryRouteWhenWrittenAndReadBack() {
    for (String name : Fixtures.ALL) {
      Topology t = Fixtures.load(name);
      Topology back = NcclTopoXmlReader.parse(NcclTopoXmlWriter.write(t));
      assertThat(back.deviceCount()).as(name).isEqualTo(t.deviceCount());
      for (int i = 0; i < t.deviceCount(); i++) {
        for (int j = 0; j < t.deviceCount(); j++) {
          Route a = t.route(i, j);
          Route b = back.route(i, j);
          String where = name + " " + i + "->" + j;
          assertThat(b.gbps())
              .as(where)
              .isCloseTo(a.gbps(), org.assertj.core.data.Offset.offset(0.01));
          // Host bridges are not in NCCL's format: NODE reads back as PHB, as NCCL itself reports.
          String expected = a.type() == PathType.NODE ? "PHB" : a.label();
          assertThat(b.label()).as(where).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void shouldReadAndWriteSeveralHostsJoinedThroughTheirNics() {
    Topology host = Fixtures.load(Fixtures.A100_4);
    Topology job = MultiHost.join(List.of(host, host));
    assertThat(job.deviceCount()).isEqualTo(8);
    assertThat(job.route(0, 4).label()).isEqualTo("NET");
    assertThat(job.route(0, 4).gbps()).isEqualTo(Bandwidths.NIC_100G_GBPS);
    String xml = NcclTopoXmlWriter.write(job);
    assertThat(xml).startsWith("<systems>");
    Topology back = NcclTopoXmlReader.parse(xml);
    assertThat(back.hostCount()).isEqualTo(2);
    assertThat(back.route(1, 6).label()).isEqualTo("NET");
  }

  @Test
  void shouldRejectAnUnknownRootElementNamingIt() {
    assertThatThrownBy(() -> NcclTopoXmlReader.parse("<graphs/>"))
        .hasMessageContaining("<graphs>")
        .hasMessageContaining("<system>");
  }

  @Test
  void shouldGiveEqualHashesForEqualTopologiesOnly() {
    Topology a = Fixtures.load(Fixtures.A100_4);
    Topology b = Fixtures.load(Fixtures.A100_4);
    Topology c = Fixtures.load(Fixtures.PCIE_4);
    assertThat(TopologyHash.sha256(a)).isEqualTo(TopologyHash.sha256(b)).hasSize(64);
    assertThat(TopologyHash.sha256(a)).isNotEqualTo(TopologyHash.sha256(c));
  }
}
