package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.testing.Permutations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The ring around disabled pairs keeps to the widest links: on a DGX-1 (V100 hybrid cube mesh: one
 * or two NVLinks between some pairs, none between others) with pair 0-1 disabled.
 */
class WeightedPeerRingTest {

  private static Topology dgx1() throws IOException {
    try (InputStream in =
        WeightedPeerRingTest.class.getResourceAsStream(
            "/topology/dgx1-v100-hybrid-cube-mesh.xml")) {
      return NcclTopoXmlReader.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  /** Bus ids in rank order, upper-case as cuDeviceGetPCIBusId gives them. */
  private static String[] busIds(Topology t) {
    String[] ids = new String[t.deviceCount()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = t.device(i).attr("busid", "?").toUpperCase(java.util.Locale.ROOT);
    }
    return ids;
  }

  /** Peer access only over NVLink (as on a DGX-1 without PCIe P2P), minus pair 0-1. */
  private static boolean[][] nvlinkPeers(double[][] gbps, double nvlinkFloor) {
    int n = gbps.length;
    boolean[][] peer = new boolean[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        peer[a][b] = a != b && gbps[a][b] >= nvlinkFloor && !(a + b == 1);
      }
    }
    return peer;
  }

  private static double bottleneck(int[] ring, double[][] gbps) {
    double min = Double.POSITIVE_INFINITY;
    for (int k = 0; k < ring.length; k++) {
      min = Math.min(min, gbps[ring[k]][ring[(k + 1) % ring.length]]);
    }
    return min;
  }

  @Test
  void shouldPickTheRingWhoseSlowestHopIsFastest() throws IOException {
    Topology t = dgx1();
    double[][] gbps = LinkBandwidths.fromTopology(t, busIds(t));
    double slowestNvlink =
        Arrays.stream(gbps).flatMapToDouble(Arrays::stream).filter(g -> g > 0).max().orElse(0)
            / 2.5; // NV1 vs NV2 on V100: 25 and 50 GB/s, PCIe/SMP paths far below
    boolean[][] peer = nvlinkPeers(gbps, slowestNvlink);

    int[] unweighted = PeerRing.find(peer);
    int[] weighted = PeerRing.find(peer, gbps);

    assertThat(weighted).isNotNull();
    double best = bruteForceBestBottleneck(peer, gbps);
    assertThat(bottleneck(weighted, gbps)).isEqualTo(best);
    assertThat(bottleneck(weighted, gbps))
        .as("weighted %s vs first %s", Arrays.toString(weighted), Arrays.toString(unweighted))
        .isEqualTo(50.0) // every hop two NVLinks
        .isGreaterThan(bottleneck(unweighted, gbps)); // the first ring in rank order takes an NV1
  }

  @Test
  void shouldKeepTheFirstRingWhenBandwidthsAreUnknownOrEqual() {
    boolean[][] peer = new boolean[4][4];
    double[][] unknown = new double[4][4];
    for (int a = 0; a < 4; a++) {
      for (int b = 0; b < 4; b++) {
        peer[a][b] = a != b && a + b != 1;
        unknown[a][b] = -1;
      }
    }
    assertThat(PeerRing.find(peer, unknown)).containsExactly(PeerRing.find(peer));
    assertThat(PeerRing.find(peer, null)).containsExactly(0, 2, 1, 3);
  }

  @Test
  void shouldReadEveryGpuPairOfTheTopologyByBusIdAndMarkUnknownOnesNegative() throws IOException {
    Topology t = dgx1();
    String[] ids = busIds(t);
    String[] withStranger = Arrays.copyOf(ids, 3);
    withStranger[2] = "0000:FF:00.0";
    double[][] gbps = LinkBandwidths.fromTopology(t, withStranger);
    assertThat(gbps[0][1]).isPositive();
    assertThat(gbps[0][2]).isEqualTo(-1);
    assertThat(gbps[2][2]).isEqualTo(-1);
    assertThat(LinkBandwidths.decode(LinkBandwidths.encode(gbps), 3)).isDeepEqualTo(gbps);
    assertThat(LinkBandwidths.fromTopology(null, ids)[0][1]).isEqualTo(-1);
  }

  private static double bruteForceBestBottleneck(boolean[][] peer, double[][] gbps) {
    int n = peer.length;
    int[] order = PeerRing.natural(n);
    double best = -1;
    do {
      boolean ok = true;
      for (int k = 0; k < n && ok; k++) {
        ok = peer[order[k]][order[(k + 1) % n]];
      }
      if (ok) {
        best = Math.max(best, bottleneck(order, gbps));
      }
    } while (Permutations.next(order, 1));
    return best;
  }
}
