package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RingOrderTest {

  @Test
  void shouldKeepRanksOfOneHostAdjacentWhenPlacedRoundRobin() {
    int[] ring = RingOrder.hostsAdjacent(List.of("a", "b", "a", "b", "c", "a"));
    assertThat(ring).containsExactly(0, 2, 5, 1, 3, 4);
    assertThat(RingOrder.next(ring, 5)).isEqualTo(1);
    assertThat(RingOrder.next(ring, 4)).isEqualTo(0);
  }

  @Test
  void shouldKeepRankOrderOnOneHostAndWhenEveryRankIsItsOwnNode() {
    assertThat(RingOrder.hostsAdjacent(List.of("a", "a", "a"))).containsExactly(0, 1, 2);
    assertThat(RingOrder.hostsAdjacent(List.of("r0", "r1", "r2"))).containsExactly(0, 1, 2);
  }
}
