package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.cuda.PeerRouting.RankPeer;
import dev.ddp4j.collectives.cuda.PeerRouting.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PeerRoutingTest {

  static List<RankPeer> oneHost(int n) {
    List<RankPeer> out = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      out.add(new RankPeer(r, "h", r));
    }
    return out;
  }

  static int[][] all(int n, int v) {
    int[][] a = new int[n][n];
    for (int[] row : a) {
      java.util.Arrays.fill(row, v);
    }
    return a;
  }

  /** {@code n} ranks on one host, every pair with peer access, but {@code disabledPairs} denied. */
  static PeerRouting disabling(int n, String disabledPairs) {
    return PeerRouting.decide(oneHost(n), all(n, 1), env("DDP4J_P2P_DISABLE_PAIRS", disabledPairs));
  }

  static PeerAccessSettings env(String k, String v) {
    return PeerAccessSettings.fromEnvironment(dev.ddp4j.spi.Settings.of(Map.of(k, v)));
  }

  @Test
  void shouldUsePeerAccessWhenEveryPairHasIt() {
    PeerRouting r = PeerRouting.decide(oneHost(4), all(4, 1), PeerAccessSettings.NONE);
    assertThat(r.firstStaged()).isNull();
    assertThat(r.pairwise(0, 3).transport()).isEqualTo(Transport.P2P_IPC);
  }

  @Test
  void shouldTrustIpcWhereNoRankCouldAskTheDriver() {
    PeerRouting r = PeerRouting.decide(oneHost(2), all(2, -1), PeerAccessSettings.NONE);
    assertThat(r.firstStaged()).isNull();
  }

  @Test
  void shouldStageEveryPairUnderP2pDisable() {
    PeerRouting r = PeerRouting.decide(oneHost(2), all(2, 1), env("DDP4J_P2P_DISABLE", "1"));
    assertThat(r.firstStaged()).isNotNull();
    assertThat(r.pairwise(0, 1).transport()).isEqualTo(Transport.SHM_STAGED);
    assertThat(r.pairwise(0, 1).reason()).isEqualTo("DDP4J_P2P_DISABLE=1");
  }

  @Test
  void shouldStageOnlyTheListedPair() {
    PeerRouting r =
        PeerRouting.decide(oneHost(3), all(3, 1), env("DDP4J_P2P_DISABLE_PAIRS", "2-1"));
    assertThat(r.firstStaged()).isNotNull();
    assertThat(r.pairwise(0, 1).transport()).isEqualTo(Transport.P2P_IPC);
    assertThat(r.pairwise(2, 1).reason()).isEqualTo("DDP4J_P2P_DISABLE_PAIRS lists 1-2");
  }

  @Test
  void shouldStageWhereTheDriverDeniesPeerAccessInEitherDirection() {
    int[][] access = all(2, 1);
    access[1][0] = 0;
    PeerRouting r = PeerRouting.decide(oneHost(2), access, PeerAccessSettings.NONE);
    assertThat(r.pairwise(0, 1).reason()).isEqualTo("cuDeviceCanAccessPeer(0, 1) = 0");
  }

  @Test
  void shouldGoThroughSocketsBetweenHosts() {
    List<RankPeer> peers = List.of(new RankPeer(0, "a", 0), new RankPeer(1, "b", 0));
    PeerRouting r = PeerRouting.decide(peers, all(2, -1), PeerAccessSettings.NONE);
    assertThat(r.firstStaged()).isNotNull();
    assertThat(r.pairwise(0, 1).transport()).isEqualTo(Transport.NET_SOCKET);
  }
}
