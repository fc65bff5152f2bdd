package dev.ddp4j.collectives.cuda.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The per-rank substitutions of the harness's rank environment (fake hosts). */
class LocalRanksTest {

  @Test
  void shouldPutEveryKRanksOnAFakeHostOfTheirOwn() {
    assertThat(LocalRanks.withRank("host{rank}", 5)).isEqualTo("host5");
    assertThat(LocalRanks.withRank("host{rank/2}", 5)).isEqualTo("host2");
    assertThat(LocalRanks.withRank("{rank%4}", 5)).isEqualTo("1");
    assertThat(LocalRanks.withRank("h{rank/4}-l{rank%4}", 6)).isEqualTo("h1-l2");
    assertThat(LocalRanks.withRank("lo", 6)).isEqualTo("lo");
  }
}
