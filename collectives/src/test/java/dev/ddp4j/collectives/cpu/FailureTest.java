package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The cpu group never hangs silently: timeouts, dead peers and mismatches, across processes. */
class FailureTest {

  /** Forces cross-memory attach for every size (native buffers, ranks of one node). */
  private static final Map<String, String> CMA_ALWAYS = Map.of("DDP4J_CMA_MIN_BYTES", "1");

  /**
   * Reads peers' shared host memory in place for every size, and never with cross-memory attach (so
   * a failure there is the shared path's).
   */
  private static final Map<String, String> SHARED_ALWAYS =
      Map.of("DDP4J_SHARED_MIN_BYTES", "1", "DDP4J_CMA_DISABLE", "1");

  @ParameterizedTest(name = "args: {0}")
  @ValueSource(strings = {"heap", "direct", "shared"})
  void shouldTimeOutOnEveryLiveRankNamingTheRankThatNeverArrived(String buffers) throws Exception {
    Map<String, String> env = buffers.equals("shared") ? SHARED_ALWAYS : CMA_ALWAYS;
    List<Outcome> outcomes = RankProcesses.run(3, env, FailureScenarios.Hang.class, 120, buffers);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
    }
    assertThat(outcomes.get(0).output()).contains("rank 0 saw the timeout");
    assertThat(outcomes.get(1).output()).contains("rank 1 saw the timeout");
    assertThat(all).contains("flight recorder of rank").contains("allReduce of 100 float32");
  }

  @ParameterizedTest(name = "shm disabled: {0}, buffers: {1}")
  @CsvSource({"0, heap", "1, heap", "0, direct", "0, shared"})
  void shouldFailWithinSecondsWhenAPeerDies(String shmDisabled, String buffers) throws Exception {
    Map<String, String> env =
        new java.util.HashMap<>(buffers.equals("shared") ? SHARED_ALWAYS : CMA_ALWAYS);
    env.put("DDP4J_SHM_DISABLE", shmDisabled);
    List<Outcome> outcomes =
        RankProcesses.run(3, env, FailureScenarios.DeadPeer.class, 120, buffers);
    String all = RankProcesses.describe(outcomes);
    assertThat(outcomes.get(1).exitStatus()).as(all).isEqualTo(7);
    assertThat(outcomes.get(0).exitStatus()).as(all).isZero();
    assertThat(outcomes.get(2).exitStatus()).as(all).isZero();
    for (Outcome o : outcomes) {
      assertThat(shmFilesOf(o.pid()))
          .as("ring files of rank %d left in /dev/shm", o.rank())
          .isZero();
    }
  }

  /**
   * heap: pieces over the rings; direct with min bytes 1: both sides post their buffers for
   * cross-memory attach; direct with min bytes 12000: the 4096-float side posts, the 2048-float
   * side sends pieces, and each must still name both.
   */
  @ParameterizedTest(name = "different {0}, {1} buffers, cma from {2} bytes")
  @CsvSource({
    "count, heap, 1",
    "dtype, heap, 1",
    "op, heap, 1",
    "count, direct, 1",
    "dtype, direct, 1",
    "op, direct, 1",
    "count, direct, 12000",
  })
  void shouldNameBothSidesWhenRanksCallDifferentCollectives(
      String what, String buffers, String cmaMinBytes) throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(
            2,
            Map.of("DDP4J_CMA_MIN_BYTES", cmaMinBytes),
            FailureScenarios.Mismatch.class,
            120,
            what,
            buffers);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " saw the mismatch");
    }
  }

  @ParameterizedTest(name = "count {0}")
  @ValueSource(strings = {"1", "100000"})
  void shouldNameBothRootsAtTheCallWhenTwoRanksBroadcastFromDifferentRoots(String count)
      throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(2, Map.of(), FailureScenarios.RootMismatch.class, 120, count);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " saw the root mismatch at the call");
    }
  }

  /** Ring files are named ddp4j-PID-RANDOM.rRANK by the rank process that created them. */
  private static long shmFilesOf(long pid) throws IOException {
    Path shm = Path.of("/dev/shm");
    if (!Files.isDirectory(shm)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(shm)) {
      return files.filter(p -> p.getFileName().toString().startsWith("ddp4j-" + pid + "-")).count();
    }
  }
}
