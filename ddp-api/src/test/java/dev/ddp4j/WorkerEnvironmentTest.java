package dev.ddp4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerEnvironmentTest {

  private static final InitOptions ENV = InitOptions.fromEnvironment(Settings.empty());

  @Test
  void shouldReadWhatTheLauncherSets() {
    Map<String, String> env =
        Map.of(
            "RANK", "5",
            "WORLD_SIZE", "8",
            "LOCAL_RANK", "1",
            "LOCAL_WORLD_SIZE", "4",
            "GROUP_RANK", "1",
            "MASTER_ADDR", "10.0.0.5",
            "MASTER_PORT", "29500",
            "DDP4J_RESTART_COUNT", "2");
    WorkerEnvironment w = WorkerEnvironment.resolve(ENV, Settings.of(env));
    assertThat(w)
        .isEqualTo(new WorkerEnvironment(5, 8, 1, 4, 1, 2, InitMethod.tcp("10.0.0.5", 29500)));
  }

  @Test
  void shouldLetOptionsOverrideTheEnvironmentAndDefaultTheLocalRanks() {
    InitOptions o =
        ENV.toBuilder().initMethod("file:///tmp/s").rank(1).worldSize(3).build(Settings.empty());
    WorkerEnvironment w =
        WorkerEnvironment.resolve(o, Settings.of(Map.of("RANK", "0", "WORLD_SIZE", "9")));
    assertThat(w.rank()).isEqualTo(1);
    assertThat(w.worldSize()).isEqualTo(3);
    assertThat(w.localRank()).isEqualTo(1);
    assertThat(w.localWorldSize()).isEqualTo(3);
    assertThat(w.initMethod().toString()).isEqualTo("file:///tmp/s");
  }

  @Test
  void shouldNameTheMissingOrBadVariable() {
    assertThatThrownBy(() -> WorkerEnvironment.resolve(ENV, Settings.of(Map.of("WORLD_SIZE", "2"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("RANK is not set")
        .hasMessageContaining("launcher.jar");
    assertThatThrownBy(
            () ->
                WorkerEnvironment.resolve(ENV, Settings.of(Map.of("RANK", "x", "WORLD_SIZE", "2"))))
        .hasMessage("RANK=x (expected: a whole number >= 0)");
    assertThatThrownBy(
            () ->
                WorkerEnvironment.resolve(ENV, Settings.of(Map.of("RANK", "2", "WORLD_SIZE", "2"))))
        .hasMessageContaining("RANK=2 is outside the job (expected: 0 <= RANK < WORLD_SIZE=2)");
    assertThatThrownBy(
            () ->
                WorkerEnvironment.resolve(ENV, Settings.of(Map.of("RANK", "0", "WORLD_SIZE", "2"))))
        .hasMessageContaining("env:// needs MASTER_ADDR");
    assertThatThrownBy(
            () ->
                WorkerEnvironment.resolve(
                    ENV,
                    Settings.of(
                        Map.of(
                            "RANK",
                            "0",
                            "WORLD_SIZE",
                            "2",
                            "MASTER_ADDR",
                            "h",
                            "MASTER_PORT",
                            "99999"))))
        .hasMessageContaining("MASTER_PORT=99999 is out of range");
  }

  @Test
  void shouldReadTheInitOptionsVariables() {
    InitOptions o =
        InitOptions.fromEnvironment(
            Settings.of(
                Map.of(
                    "DDP4J_INIT_METHOD", "tcp://h:7",
                    "DDP4J_BACKEND", "CPU",
                    "DDP4J_TIMEOUT_SECONDS", "1.5")));
    assertThat(o.initMethod()).isEqualTo(InitMethod.tcp("h", 7));
    assertThat(o.backend()).isEqualTo("cpu");
    assertThat(o.timeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(ENV.timeout()).isEqualTo(Duration.ofSeconds(300));
    assertThatThrownBy(
            () -> InitOptions.fromEnvironment(Settings.of(Map.of("DDP4J_TIMEOUT_SECONDS", "soon"))))
        .hasMessage("DDP4J_TIMEOUT_SECONDS=soon (expected: a number of seconds above 0, e.g. 300)");
    assertThatThrownBy(
            () -> InitOptions.fromEnvironment(Settings.of(Map.of("DDP4J_BACKEND", "cuda:nccl"))))
        .hasMessageContaining(
            "backend 'cuda:nccl' is not a backend name (expected: auto, cpu, cuda or nccl)");
    // a name of the form is checked against the classpath's providers by Ddp.init (DdpInitTest)
    assertThat(InitOptions.fromEnvironment(Settings.of(Map.of("DDP4J_BACKEND", "gloo"))).backend())
        .isEqualTo("gloo");
  }

  @Test
  void shouldBuildOptionsAndNameTheBadValue() {
    InitOptions o =
        InitOptions.builder()
            .backend("NCCL")
            .timeout(Duration.ofSeconds(9))
            .build(Settings.of(Map.of("DDP4J_BACKEND", "cpu", "DDP4J_INIT_METHOD", "tcp://h:7")));
    assertThat(o.backend()).isEqualTo("nccl"); // set beats the environment
    assertThat(o.initMethod()).isEqualTo(InitMethod.tcp("h", 7)); // unset: from the environment
    assertThat(o.timeout()).isEqualTo(Duration.ofSeconds(9));
    assertThat(o.rank()).isEmpty();
    assertThat(o.store()).isEmpty();
    InitOptions changed = o.toBuilder().rank(2).worldSize(4).build(Settings.empty());
    assertThat(changed.rank()).hasValue(2);
    assertThat(changed.backend()).isEqualTo("nccl");
    assertThat(changed.initMethod()).isEqualTo(InitMethod.tcp("h", 7));
    assertThatThrownBy(() -> InitOptions.builder().rank(-1))
        .isInstanceOf(ConfigException.class)
        .hasMessage("rank : -1 (expected: >= 0)");
    assertThatThrownBy(() -> InitOptions.builder().worldSize(0))
        .hasMessage("worldSize : 0 (expected: >= 1)");
    assertThatThrownBy(() -> InitOptions.builder().timeout(Duration.ZERO))
        .hasMessage("timeout : PT0S (expected: a positive duration, e.g. 300 s)");
    assertThatThrownBy(() -> InitOptions.builder().rank(4).worldSize(4).build(Settings.empty()))
        .hasMessage("rank 4 of worldSize 4 (expected: 0 <= rank < worldSize)");
  }
}
