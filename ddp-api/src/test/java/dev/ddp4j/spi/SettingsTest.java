package dev.ddp4j.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {

  @Test
  void aDdp4jNameShouldFallBackToItsNcclNameAndWinWhereBothAreSet() {
    Settings nccl = Settings.of(Map.of("NCCL_ALGO", " ring "));
    assertThat(nccl.text("DDP4J_ALGO")).contains("ring");
    assertThat(nccl.source("DDP4J_ALGO")).isEqualTo("NCCL_ALGO");
    Settings both = Settings.of(Map.of("NCCL_ALGO", "ring", "DDP4J_ALGO", "tree"));
    assertThat(both.text("DDP4J_ALGO")).contains("tree");
    // Only where NCCL's variable means the same: NCCL_SHM_SLOTS is no such name.
    assertThat(Settings.of(Map.of("NCCL_SHM_SLOTS", "4")).isSet("DDP4J_SHM_SLOTS")).isFalse();
  }

  @Test
  void aBlankValueShouldCountAsUnset() {
    Settings s = Settings.of(Map.of("DDP4J_ALGO", "  ", "NCCL_ALGO", "tree", "DDP4J_X", ""));
    assertThat(s.text("DDP4J_ALGO")).contains("tree");
    assertThat(s.whole("DDP4J_X", 7, 1, 9)).isEqualTo(7);
    assertThat(s.flag("DDP4J_X", true)).isTrue();
  }

  @Test
  void typedValuesShouldFailInOneStyleNamingTheVariableThatCarriedThem() {
    Settings s =
        Settings.of(
            Map.of(
                "DDP4J_SLOTS", "x",
                "DDP4J_LANES", "9",
                "NCCL_SHM_DISABLE", "yes",
                "DDP4J_T", "-1",
                "DDP4J_CHOICE", "blue"));
    assertThatThrownBy(() -> s.whole("DDP4J_SLOTS", 8, 2, Integer.MAX_VALUE))
        .isInstanceOf(ConfigException.class)
        .hasMessage("DDP4J_SLOTS=x (expected: a whole number >= 2)");
    assertThatThrownBy(() -> s.whole("DDP4J_LANES", 2, 1, 8))
        .hasMessage("DDP4J_LANES=9 (expected: a whole number from 1 to 8)");
    assertThatThrownBy(() -> s.flag("DDP4J_SHM_DISABLE", false))
        .hasMessage("NCCL_SHM_DISABLE=yes (expected: 1 or 0)");
    assertThatThrownBy(() -> s.seconds("DDP4J_T", 300))
        .hasMessage("DDP4J_T=-1 (expected: a number of seconds above 0, e.g. 300)");
    assertThatThrownBy(() -> s.parsed("DDP4J_CHOICE", Color::valueOf, "RED or GREEN"))
        .hasMessage("DDP4J_CHOICE=blue (expected: RED or GREEN)");
  }

  @Test
  void typedValuesShouldReadWhatIsSet() {
    Settings s =
        Settings.of(
            Map.of(
                "DDP4J_N", "12", "DDP4J_ON", "1", "DDP4J_OFF", "0", "DDP4J_S", "1.5", "C", "RED"));
    assertThat(s.whole("DDP4J_N", 1, 1, 64)).isEqualTo(12);
    assertThat(s.wholeLong("DDP4J_N", 1, 1, Long.MAX_VALUE)).isEqualTo(12L);
    assertThat(s.flag("DDP4J_ON", false)).isTrue();
    assertThat(s.flag("DDP4J_OFF", true)).isFalse();
    assertThat(s.seconds("DDP4J_S", 300)).isEqualTo(1.5);
    assertThat(s.parsed("C", Color::valueOf, "RED or GREEN")).contains(Color.RED);
    assertThat(s.parsed("D", Color::valueOf, "RED or GREEN")).isEmpty();
  }

  @Test
  void theProcessSettingsShouldBeTheEnvironmentReadOnce() {
    assertThat(Settings.process()).isSameAs(Settings.process());
    assertThat(Settings.process().variables()).isEqualTo(System.getenv());
  }

  private enum Color {
    RED,
    GREEN
  }
}
