package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PeerAccessSettingsTest {

  @Test
  void shouldAllowEveryPairWhenNothingIsSet() {
    PeerAccessSettings s = PeerAccessSettings.fromEnvironment(dev.ddp4j.spi.Settings.empty());
    assertThat(s.allDisabled()).isFalse();
    assertThat(s.pairDisabled(0, 1)).isFalse();
  }

  @Test
  void shouldDisableEveryPairWithTheNcclNameAsFallback() {
    PeerAccessSettings s =
        PeerAccessSettings.fromEnvironment(
            dev.ddp4j.spi.Settings.of(Map.of("NCCL_P2P_DISABLE", "1")));
    assertThat(s.allDisabled()).isTrue();
    assertThat(s.allSource()).isEqualTo("NCCL_P2P_DISABLE");
    PeerAccessSettings own =
        PeerAccessSettings.fromEnvironment(
            dev.ddp4j.spi.Settings.of(Map.of("DDP4J_P2P_DISABLE", "0", "NCCL_P2P_DISABLE", "1")));
    assertThat(own.allDisabled()).isFalse();
  }

  @Test
  void shouldDisableListedPairsInBothDirectionsOnly() {
    PeerAccessSettings s =
        PeerAccessSettings.fromEnvironment(
            dev.ddp4j.spi.Settings.of(Map.of("DDP4J_P2P_DISABLE_PAIRS", " 1-0, 2-3 ")));
    assertThat(s.pairs()).containsExactly("0-1", "2-3");
    assertThat(s.pairDisabled(0, 1)).isTrue();
    assertThat(s.pairDisabled(1, 0)).isTrue();
    assertThat(s.pairDisabled(3, 2)).isTrue();
    assertThat(s.pairDisabled(1, 2)).isFalse();
  }

  @Test
  void shouldRejectMalformedPairsNamingTheValueAndTheForm() {
    for (String bad : new String[] {"0", "0-0", "a-b", "0-1-2", "0-1,", "-1-2", "0:1"}) {
      assertThatThrownBy(
              () ->
                  PeerAccessSettings.fromEnvironment(
                      dev.ddp4j.spi.Settings.of(Map.of("DDP4J_P2P_DISABLE_PAIRS", bad))))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DDP4J_P2P_DISABLE_PAIRS=" + bad)
          .hasMessageContaining(
              "expected: comma-separated pairs of two different CUDA device"
                  + " ordinals, e.g. 0-1,2-3");
    }
  }

  @Test
  void shouldRejectP2pDisableValuesOtherThanZeroOrOne() {
    assertThatThrownBy(
            () ->
                PeerAccessSettings.fromEnvironment(
                    dev.ddp4j.spi.Settings.of(Map.of("DDP4J_P2P_DISABLE", "yes"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DDP4J_P2P_DISABLE=yes")
        .hasMessageContaining("expected: 1");
  }

  @Test
  void shouldRefuseRanksWhoseSettingsDifferNamingBoth() {
    String mine =
        PeerAccessSettings.fromEnvironment(
                dev.ddp4j.spi.Settings.of(Map.of("DDP4J_P2P_DISABLE", "1")))
            .describe();
    String theirs = PeerAccessSettings.NONE.describe();
    assertThat(mine).isEqualTo("DDP4J_P2P_DISABLE=1 DDP4J_P2P_DISABLE_PAIRS=");
    PeerAccessSettings.checkSame(0, mine, 1, mine);
    assertThatThrownBy(() -> PeerAccessSettings.checkSame(0, mine, 1, theirs))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "rank 1 runs with DDP4J_P2P_DISABLE=0 DDP4J_P2P_DISABLE_PAIRS= but rank 0 with"
                + " DDP4J_P2P_DISABLE=1 DDP4J_P2P_DISABLE_PAIRS= (expected: the same peer-access"
                + " and staging settings on every rank)");
  }
}
