package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.cuda.PeerRouting.RankPeer;
import java.util.List;
import org.junit.jupiter.api.Test;

class CudaRouteLinesTest {

  private static final CudaRouteLines.Paths NV18 = (a, b) -> "NVL (NV18, 450 GB/s)";

  @Test
  void shouldLogOneP2pLinePerPeerWithWhatJoinsTheGpus() {
    PeerRouting r =
        PeerRouting.decide(
            PeerRoutingTest.oneHost(3), PeerRoutingTest.all(3, 1), PeerAccessSettings.NONE);
    CudaRouteLines.Lines lines = CudaRouteLines.ofRank(r, 1, 1, NV18);
    assertThat(lines.info())
        .containsExactly(
            "Channel 00/01 : 1[1] -> 0[0] via P2P/IPC over NVL (NV18, 450 GB/s)",
            "Channel 00/01 : 1[1] -> 2[2] via P2P/IPC over NVL (NV18, 450 GB/s)");
    assertThat(lines.warn()).isEmpty();
  }

  @Test
  void shouldSayWhenThePathIsUnknown() {
    PeerRouting r =
        PeerRouting.decide(
            PeerRoutingTest.oneHost(2), PeerRoutingTest.all(2, 1), PeerAccessSettings.NONE);
    assertThat(CudaRouteLines.ofRank(r, 0, 1, (a, b) -> null).info())
        .containsExactly(
            "Channel 00/01 : 0[0] -> 1[1] via P2P/IPC over an unknown path (topology not"
                + " discovered)");
  }

  @Test
  void shouldLogStagedRingHopsPerChannelAndWarnWithTheFixWhenNvlinkIsUnused() {
    PeerRouting r = PeerRoutingTest.disabling(2, "0-1");
    CudaRouteLines.Lines lines = CudaRouteLines.ofRank(r, 1, 2, NV18);
    String via =
        " via SHM/staged over PCI (device <-> pinned host memory; DDP4J_P2P_DISABLE_PAIRS lists"
            + " 0-1)";
    assertThat(lines.info())
        .containsExactly(
            "Channel 00/02 : 1[1] -> 0[0]" + via, "Channel 01/02 : 1[1] -> 0[0]" + via);
    assertThat(lines.warn())
        .containsExactly(
            "Channel 00 : 1[1] -> 0[0] goes through host memory though NVL (NV18, 450 GB/s) joins"
                + " the GPUs (DDP4J_P2P_DISABLE_PAIRS lists 0-1); remove the pair from"
                + " DDP4J_P2P_DISABLE_PAIRS to use peer access");
  }

  @Test
  void shouldNameTheCulpritPairWhenTheWholeGroupIsStaged() {
    PeerRouting r = PeerRoutingTest.disabling(4, "2-3,0-3");
    CudaRouteLines.Lines lines = CudaRouteLines.ofRank(r, 0, 1, NV18);
    assertThat(lines.info())
        .containsExactly(
            "Channel 00/01 : 0[0] -> 1[1] via SHM/staged over PCI (device <-> pinned host memory;"
                + " whole group staged since ranks 0 and 3 have no peer path"
                + " (DDP4J_P2P_DISABLE_PAIRS lists 0-3) and no ring through peer pairs avoids"
                + " them)");
    assertThat(lines.warn())
        .singleElement()
        .asString()
        .contains("no ring through peer pairs avoids that pair")
        .contains("each GPU needs peer access to at least two others");
  }

  @Test
  void shouldLogTheRingItsIpcHopAndTheAvoidedPairWhenRoutedAroundIt() {
    PeerRouting r = PeerRoutingTest.disabling(4, "0-1");
    CudaRouteLines.Lines rank0 = CudaRouteLines.ofRank(r, 0, 2, NV18);
    assertThat(rank0.info())
        .containsExactly(
            "Ring 00 : 0[0] -> 2[2] -> 1[1] -> 3[3] -> 0[0] (every collective)",
            "Channel 00/01 : 0[0] -> 2[2] via P2P/IPC over NVL (NV18, 450 GB/s)",
            "ring avoids 0-1: DDP4J_P2P_DISABLE_PAIRS lists 0-1");
    assertThat(rank0.warn()).isEmpty();
    assertThat(CudaRouteLines.ofRank(r, 3, 2, NV18).info())
        .contains("Channel 00/01 : 3[3] -> 0[0] via P2P/IPC over NVL (NV18, 450 GB/s)");
    assertThat(CudaRouteLines.ofRank(r, 1, 2, NV18).info())
        .contains("Channel 00/01 : 1[1] -> 3[3] via P2P/IPC over NVL (NV18, 450 GB/s)");
  }

  @Test
  void shouldLogSocketHopsBetweenHostsWithoutAWarning() {
    PeerRouting r =
        PeerRouting.decide(
            List.of(new RankPeer(0, "hostA", 0), new RankPeer(1, "hostB", 0)),
            PeerRoutingTest.all(2, -1),
            PeerAccessSettings.NONE);
    CudaRouteLines.Lines lines = CudaRouteLines.ofRank(r, 0, 1, (a, b) -> null);
    assertThat(lines.info())
        .containsExactly(
            "Channel 00/01 : 0[0] -> 1[0] via NET/Socket over NET (staged through pinned host"
                + " memory; rank 1 is on host hostB)");
    assertThat(lines.warn()).isEmpty();
  }

  @Test
  void shouldLogNothingForOneRank() {
    PeerRouting r =
        PeerRouting.decide(
            PeerRoutingTest.oneHost(1), PeerRoutingTest.all(1, 1), PeerAccessSettings.NONE);
    assertThat(CudaRouteLines.ofRank(r, 0, 1, NV18).info()).isEmpty();
  }
}
