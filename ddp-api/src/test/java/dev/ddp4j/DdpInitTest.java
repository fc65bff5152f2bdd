package dev.ddp4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.spi.BackendProvider;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DdpInitTest {

  /** A provider that only answers the selection questions; selection never calls create. */
  private record Candidate(String name, Optional<String> unavailableReason, int autoPriority)
      implements BackendProvider {
    @Override
    public ProcessGroup create(
        WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
      throw new AssertionError("selection must not create a group");
    }
  }

  private static final Candidate CPU = new Candidate("cpu", Optional.empty(), 10);
  private static final Candidate CUDA = new Candidate("cuda", Optional.empty(), 20);
  private static final Candidate NO_CUDA =
      new Candidate("cuda", Optional.of("no CUDA driver: libcuda.so.1 not found"), 20);

  @Test
  void autoShouldPreferTheHighestPriorityBackendThatCanRun() {
    assertThat(Ddp.selectBackend("auto", List.of(CPU, CUDA))).isSameAs(CUDA);
    assertThat(Ddp.selectBackend("auto", List.of(NO_CUDA, CPU))).isSameAs(CPU);
    assertThat(Ddp.selectBackend("cpu", List.of(CUDA, CPU))).isSameAs(CPU);
  }

  @Test
  void shouldSayWhyARequestedBackendCannotRun() {
    assertThatThrownBy(() -> Ddp.selectBackend("cuda", List.of(CPU, NO_CUDA)))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "backend 'cuda' cannot run here: no CUDA driver: libcuda.so.1 not found (set DDP4J_BACKEND=cpu or auto)");
    assertThatThrownBy(() -> Ddp.selectBackend("auto", List.of(NO_CUDA)))
        .hasMessage("no backend can run here: cuda: no CUDA driver: libcuda.so.1 not found");
    assertThatThrownBy(() -> Ddp.selectBackend("cuda", List.of(CPU)))
        .hasMessage("backend 'cuda' is not on the classpath (found: [cpu])");
    assertThatThrownBy(() -> Ddp.selectBackend("gloo", List.of(CPU, NO_CUDA)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backend 'gloo' is not known (expected: auto, cpu or cuda)");
  }

  @Test
  void shouldSelectABackendOfTheSpiByItsName() {
    Candidate mine = new Candidate("standin-cuda", Optional.empty(), 0);
    assertThat(Ddp.selectBackend("standin-cuda", List.of(CPU, mine))).isSameAs(mine);
    assertThat(Ddp.selectBackend("auto", List.of(mine, CPU))).isSameAs(CPU);
  }

  @Test
  void shouldNameTheMissingModuleWhenNothingIsOnTheClasspath() {
    // ddp-api alone carries no providers: the real ServiceLoader finds none.
    assertThat(Ddp.loadBackends()).isEmpty();
    assertThatThrownBy(() -> Ddp.selectBackend("auto", Ddp.loadBackends()))
        .hasMessageContaining("dev.ddp4j:collectives");
    WorkerEnvironment w = new WorkerEnvironment(0, 1, 0, 1, 0, 0, InitMethod.tcp("localhost", 1));
    assertThatThrownBy(() -> Ddp.connectStore(w, Duration.ofSeconds(1)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no store for init method tcp://localhost:1");
  }
}
