package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every collective, dtype and op across real rank processes, against a sequential reference: with
 * the algorithm the planner chooses per size, and with each algorithm forced.
 */
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
    "4, 0, 2, tree, quick",
    "5, 0, 1, tree, quick",
    "4, 1, 2, hierarchical, quick",
    "4, 0, 1, planner, big",
    "3, 1, 1, planner, quick",
  })
  void shouldMatchTheSequentialReferenceOnEveryRank(
      int ranks, int shmDisabled, int channels, String algorithm, String mode) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("DDP4J_SHM_DISABLE", Integer.toString(shmDisabled));
    env.put("DDP4J_NCHANNELS", Integer.toString(channels));
    env.put("DDP4J_SHM_SLOT_BYTES", channels == 2 ? "4096" : "65536");
    env.put("DDP4J_DEBUG", "INFO");
    if (!algorithm.equals("planner")) { // "planner": the plan chooses per size
      env.put("DDP4J_ALGO", algorithm);
    }
    List<Outcome> outcomes = RankProcesses.run(ranks, env, CorrectnessScenario.class, 240, mode);
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
        .containsPattern("Channel 00/" + channelCount + " : 0\\[0\\] -> 1\\[1\\] " + route)
        .contains("all-reduce algorithm by size: ");
    if (algorithm.equals("hierarchical")) { // every rank its own host: no islands of equal size
      assertThat(outcomes.get(0).output())
          .contains("DDP4J_ALGO=hierarchical does not apply to these 4 ranks on 4 host(s)");
    } else if (!algorithm.equals("planner")) {
      assertThat(outcomes.get(0).output())
          .contains("all-reduce algorithm by size: " + algorithm + " 8 B-4 GiB");
    }
  }
}
