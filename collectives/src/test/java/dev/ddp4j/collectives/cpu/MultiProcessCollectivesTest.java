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

  @ParameterizedTest(name = "{0} ranks, shm disabled: {1}, {2} channels, {3}, args: {4}")
  @CsvSource({
    "2, 0, 1, ring, big",
    "3, 0, 1, ring, full",
    "4, 0, 1, ring, big",
    "8, 0, 1, ring, quick",
    "3, 1, 1, ring, quick",
    "3, 0, 2, ring, quick",
    "2, 1, 2, ring, quick",
    "2, 0, 1, oneshot, big",
    "3, 0, 1, twoshot, quick",
  })
  void shouldMatchTheSequentialReferenceOnEveryRank(
      int ranks, int shmDisabled, int channels, String algorithm, String mode) throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(
            ranks,
            Map.of(
                "DDP4J_SHM_DISABLE",
                Integer.toString(shmDisabled),
                "DDP4J_NCHANNELS",
                Integer.toString(channels),
                "DDP4J_SHM_SLOT_BYTES",
                channels == 2 ? "4096" : "65536",
                "DDP4J_ALGO",
                algorithm,
                "DDP4J_DEBUG",
                "INFO"),
            CorrectnessScenario.class,
            240,
            mode);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " passed");
    }
    // SHM/CMA: large all-reduces read peers' buffers too (CrossMemoryAllReduceTest), where the
    // kernel allows it and the algorithm is the default ring
    String route = shmDisabled == 1 ? "via NET/Socket" : "via SHM(/CMA)? over NODE";
    String channelCount = String.format("%02d", channels);
    assertThat(outcomes.get(0).output())
        .containsPattern("Channel 00/" + channelCount + " : 0\\[0\\] -> 1\\[1\\] " + route);
  }
}
