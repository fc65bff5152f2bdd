package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.cuda.PeerRouting.Hop;
import dev.ddp4j.collectives.cuda.PeerRouting.Mode;
import dev.ddp4j.collectives.cuda.PeerRouting.RankPeer;
import dev.ddp4j.collectives.cuda.PeerRouting.Transport;
import dev.ddp4j.testing.Permutations;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Routing a cuda group's all-reduce ring around GPU pairs without peer access, without a GPU. */
class PeerRingTest {

  private static PeerRouting decide(int n, String disabledPairs) {
    return PeerRoutingTest.disabling(n, disabledPairs);
  }

  /** The ring visits every rank once and every hop, the closing one included, has peer access. */
  private static void assertRingUsesPeerPairsOnly(PeerRouting r) {
    int[] ring = r.ring();
    assertThat(ring).hasSize(r.size());
    assertThat(ring[0]).isZero();
    assertThat(java.util.Arrays.stream(ring).sorted().toArray())
        .isEqualTo(PeerRing.natural(r.size()));
    for (int k = 0; k < ring.length; k++) {
      int a = ring[k];
      int b = ring[(k + 1) % ring.length];
      assertThat(r.pairwise(a, b).transport())
          .as("hop %d -> %d", a, b)
          .isEqualTo(Transport.P2P_IPC);
      assertThat(r.pairwise(b, a).transport()).isEqualTo(Transport.P2P_IPC);
    }
  }

  @Test
  void shouldRouteTheRingAroundOneDisabledPairOfFourRanks() {
    PeerRouting r = decide(4, "0-1");
    assertThat(r.mode()).isEqualTo(Mode.RING);
    assertThat(r.staged()).isFalse();
    assertThat(r.ring()).containsExactly(0, 2, 1, 3);
    assertRingUsesPeerPairsOnly(r);
    assertThat(r.missingPairs())
        .extracting(Hop::from, Hop::to, Hop::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, 1, "DDP4J_P2P_DISABLE_PAIRS lists 0-1"));
  }

  @Test
  void shouldRouteTheRingAroundTwoDisjointDisabledPairsOfFourRanks() {
    PeerRouting r = decide(4, "0-1,2-3");
    assertThat(r.mode()).isEqualTo(Mode.RING);
    assertThat(r.ring()).containsExactly(0, 2, 1, 3);
    assertRingUsesPeerPairsOnly(r);
    assertThat(r.missingPairs()).hasSize(2);
  }

  @Test
  void shouldRouteTheRingAroundFourDisabledPairsOfEightRanks() {
    PeerRouting r = decide(8, "0-1,1-2,2-3,3-4,4-5,5-6,6-7,0-7");
    assertThat(r.mode()).isEqualTo(Mode.RING);
    assertRingUsesPeerPairsOnly(r);
    // The natural ring's every hop is disabled; the search takes the lexicographically first other.
    assertThat(r.missingPairs()).hasSize(8);
    assertThat(r.ring()).isEqualTo(decide(8, "0-7,6-7,5-6,4-5,3-4,2-3,1-2,0-1").ring());
  }

  @Test
  void shouldRouteAroundAPairTheDriverDenies() {
    int[][] access = PeerRoutingTest.all(4, 1);
    access[3][0] = 0;
    PeerRouting r = PeerRouting.decide(PeerRoutingTest.oneHost(4), access, PeerAccessSettings.NONE);
    assertThat(r.mode()).isEqualTo(Mode.RING);
    assertThat(r.ring()).containsExactly(0, 1, 3, 2);
    assertRingUsesPeerPairsOnly(r);
  }

  @Test
  void shouldStageTheWholeGroupWhenNoRingAvoidsTheMissingPairs() {
    // Three ranks: a ring needs all three pairs.
    PeerRouting three = decide(3, "1-2");
    assertThat(three.mode()).isEqualTo(Mode.STAGED);
    assertThat(three.ring()).isNull();
    assertThat(three.effective(0, 1).reason())
        .isEqualTo(
            "whole group staged since ranks 1 and 2 have no peer path"
                + " (DDP4J_P2P_DISABLE_PAIRS lists 1-2) and no ring through peer pairs avoids"
                + " them");
    // Four ranks where rank 0 reaches only rank 1: a ring needs two peers per rank.
    assertThat(decide(4, "0-2,0-3").mode()).isEqualTo(Mode.STAGED);
    // Two ranks: the only pair is the missing one.
    assertThat(decide(2, "0-1").mode()).isEqualTo(Mode.STAGED);
  }

  @Test
  void shouldStageEverythingUnderP2pDisableAndBetweenHostsWithoutLookingForARing() {
    PeerRouting all =
        PeerRouting.decide(
            PeerRoutingTest.oneHost(4),
            PeerRoutingTest.all(4, 1),
            PeerRoutingTest.env("DDP4J_P2P_DISABLE", "1"));
    assertThat(all.mode()).isEqualTo(Mode.STAGED);
    assertThat(all.effective(0, 1).reason()).isEqualTo("DDP4J_P2P_DISABLE=1");
    List<RankPeer> twoHosts = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      twoHosts.add(new RankPeer(r, r < 2 ? "a" : "b", r % 2));
    }
    PeerRouting hosts =
        PeerRouting.decide(twoHosts, PeerRoutingTest.all(4, -1), PeerAccessSettings.NONE);
    assertThat(hosts.mode()).isEqualTo(Mode.STAGED);
    assertThat(hosts.ring()).isNull();
  }

  @Test
  void shouldDecideTheSameRingOnEveryRank() {
    // Each rank builds the access matrix from the rows every rank published (PeerDirectory), then
    // decides on its own: the rings must be equal, or ranks would push to different successors.
    int n = 8;
    int[][] published = PeerRoutingTest.all(n, 1);
    published[2][5] = 0;
    published[6][1] = 0;
    List<String> rings = new ArrayList<>();
    for (int rank = 0; rank < n; rank++) {
      int[][] seen = new int[n][];
      for (int r = 0; r < n; r++) {
        seen[r] = published[r].clone();
      }
      PeerRouting r =
          PeerRouting.decide(
              PeerRoutingTest.oneHost(n),
              seen,
              PeerRoutingTest.env("DDP4J_P2P_DISABLE_PAIRS", "0-1,3-4"));
      assertRingUsesPeerPairsOnly(r);
      rings.add(java.util.Arrays.toString(r.ring()));
    }
    assertThat(rings).containsOnly(rings.get(0));
  }

  @Test
  void shouldFindARingExactlyWhenOneExists() {
    // Against brute force over every order, on random graphs of 3 to 7 ranks.
    Random random = new Random(42);
    for (int trial = 0; trial < 400; trial++) {
      int n = 3 + trial % 5;
      boolean[][] peer = new boolean[n][n];
      for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
          peer[a][b] = peer[b][a] = random.nextInt(10) < 6;
        }
      }
      int[] ring = PeerRing.find(peer);
      assertThat(ring != null).as("trial %d", trial).isEqualTo(anyRing(peer));
      if (ring != null) {
        for (int k = 0; k < n; k++) {
          assertThat(peer[ring[k]][ring[(k + 1) % n]]).isTrue();
        }
      }
    }
  }

  private static boolean anyRing(boolean[][] peer) {
    int n = peer.length;
    int[] order = PeerRing.natural(n);
    do {
      boolean ok = true;
      for (int k = 0; k < n && ok; k++) {
        ok = peer[order[k]][order[(k + 1) % n]];
      }
      if (ok) {
        return true;
      }
    } while (Permutations.next(order, 0));
    return false;
  }

  @Test
  void shouldPackTheRingForTheKernelFourBitsPerPosition() {
    assertThat(PeerRing.pack(new int[] {0, 2, 1, 3})).isEqualTo(0x3120L);
    assertThat(PeerRing.next(new int[] {0, 2, 1, 3}, 3)).isZero();
    assertThat(PeerRing.next(new int[] {0, 2, 1, 3}, 2)).isEqualTo(1);
  }
}
