package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Point-to-point, rooted, all-to-all and object collectives across real rank processes, over shared
 * memory on one node and over loopback sockets as between nodes ({@link PointToPointScenario}).
 */
class MultiProcessPointToPointTest {

  @ParameterizedTest(name = "{0} ranks, shm disabled: {1}")
  @CsvSource({"3, 0", "2, 1", "3, 1"})
  void shouldExchangeBothWaysAndRunRootedAndObjectCollectives(int ranks, int shmDisabled)
      throws Exception {
    Map<String, String> env = Map.of("DDP4J_SHM_DISABLE", Integer.toString(shmDisabled));
    List<Outcome> outcomes = RankProcesses.run(ranks, env, PointToPointScenario.class, 180);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output())
          .as(all)
          .contains("rank " + o.rank() + " exchanged 8 MiB both ways")
          .contains("rank " + o.rank() + " checked reduce, gather, scatter and allToAll")
          .contains("rank " + o.rank() + " checked object collectives")
          .contains("rank " + o.rank() + " passed");
      if (o.rank() < 2) {
        assertThat(o.output()).as(all).contains("rank " + o.rank() + " saw the p2p mismatch");
      }
    }
  }

  @ParameterizedTest(name = "shm disabled: {0}")
  @CsvSource({"0", "1"})
  void shouldFailMessagesToAndFromARankThatExitedNamingIt(int shmDisabled) throws Exception {
    Map<String, String> env = Map.of("DDP4J_SHM_DISABLE", Integer.toString(shmDisabled));
    List<Outcome> outcomes = RankProcesses.run(2, env, PointToPointScenario.PeerExits.class, 120);
    String all = RankProcesses.describe(outcomes);
    assertThat(outcomes.get(1).output()).as(all).contains("rank 1 exits");
    assertThat(outcomes.get(0).exitStatus()).as(all).isZero();
    assertThat(outcomes.get(0).output()).as(all).contains("rank 0 saw rank 1 exit in");
  }
}
