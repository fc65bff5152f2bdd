package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every collective, dtype and op across real rank processes, against a sequential reference. */
class MultiProcessCollectivesTest {

  @ParameterizedTest(name = "{0} ranks, shm disabled: {1}, args: {2}")
  @CsvSource({
    "2, 0, big",
    "3, 0, full",
    "4, 0, big",
    "8, 0, quick",
    "3, 1, quick",
  })
  void shouldMatchTheSequentialReferenceOnEveryRank(int ranks, int shmDisabled, String mode)
      throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(
            ranks,
            Map.of("DDP4J_SHM_DISABLE", Integer.toString(shmDisabled), "DDP4J_DEBUG", "INFO"),
            CorrectnessScenario.class,
            240,
            mode);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " passed");
    }
    String route = shmDisabled == 1 ? "via NET/Socket" : "via SHM over NODE";
    assertThat(outcomes.get(0).output()).contains("Channel 00/01 : 0[0] -> 1[1] " + route);
  }
}
