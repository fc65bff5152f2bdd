package dev.ddp4j.collectives.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.testing.RandomCases;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RingSearchTest {

  private static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  private static void assertOptimal(Topology t, int n, int[] baseFlows, String what) {
    RingScorer s = new RingScorer(t, identity(n), baseFlows);
    int[] found = RingSearch.best(s, identity(n));
    RingScore expected = BruteForce.bestScore(s, n);
    assertThat(s.score(found)).as(what).isEqualTo(expected);
    assertThat(found).as(what).containsExactlyInAnyOrder(identity(n)).startsWith(0);
  }

  @Test
  void shouldMatchBruteForceOnEveryFixtureAndEveryRankCount() {
    for (String name : Fixtures.ALL) {
      Topology t = Fixtures.load(name);
      for (int n = 3; n <= t.deviceCount(); n++) {
        assertOptimal(t, n, null, name + " n=" + n);
      }
    }
  }

  @Test
  void shouldMatchBruteForceWhenEarlierChannelsAlreadyLoadTheLinks() {
    Topology t = Fixtures.load(Fixtures.DGX1_V100_XML);
    List<int[]> rings = RingChannels.search(t, identity(8), 4);
    int[] flows = new int[2 * t.links().size()];
    RingScorer s = new RingScorer(t, identity(8), flows);
    for (int[] ring : rings.subList(0, 2)) {
      for (int i = 0; i < 8; i++) {
        s.apply(flows, ring[i], ring[(i + 1) % 8], 1);
      }
    }
    assertOptimal(t, 8, flows, "dgx1 third channel");
  }

  @Test
  void shouldFindTheNvlinkOnlyRingOfTheDgx1() {
    Topology t = Fixtures.load(Fixtures.DGX1_V100_XML);
    RingScorer s = new RingScorer(t, identity(8), null);
    int[] ring = RingSearch.best(s, identity(8));
    for (int i = 0; i < 8; i++) {
      assertThat(t.route(ring[i], ring[(i + 1) % 8]).label()).isEqualTo("NV2");
    }
  }

  @Test
  void shouldPutEveryPcieHopOfTheA100BoxOnlyWhereNvlinkCannotReach() {
    Topology t = Fixtures.load(Fixtures.A100_4);
    RingScorer s = new RingScorer(t, identity(4), null);
    int[] ring = RingSearch.best(s, identity(4));
    int nvlinkHops = 0;
    for (int i = 0; i < 4; i++) {
      nvlinkHops += t.route(ring[i], ring[(i + 1) % 4]).label().startsWith("NV") ? 1 : 0;
    }
    assertThat(nvlinkHops).isEqualTo(2);
    assertThat(s.score(ring).hopsAtBottleneck()).isEqualTo(2);
  }

  static Stream<Arguments> randomMachines() {
    return RandomCases.of(6000, 60, d -> new Object[] {d.anyLong(), d.between(3, 8)});
  }

  @ParameterizedTest(name = "[{index}] seed={0} gpus={1}")
  @MethodSource("randomMachines")
  void shouldMatchBruteForceOnRandomMachines(long seed, int gpus) {
    Topology t = RandomTopologies.generate(seed, gpus);
    assertOptimal(t, gpus, null, "seed " + seed + " gpus " + gpus);
  }

  @Test
  void shouldImproveLargeRingsGreedilyWithoutBreakingThePermutation() {
    Topology t = RandomTopologies.generate(42, 14);
    RingScorer s = new RingScorer(t, identity(14), null);
    int[] ring = RingSearch.best(s, identity(14));
    assertThat(ring).containsExactlyInAnyOrder(identity(14));
    int[] greedy = RingSearch.greedy(s, identity(14));
    assertThat(s.score(ring).compareTo(s.score(greedy))).isGreaterThanOrEqualTo(0);
  }
}
