package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * All-reduces over the group's shared host memory ({@code ProcessGroup.allocateHost}) across real
 * rank processes ({@link SharedMemoryScenario}): every rank maps every rank's block, and
 * all-reduces from {@code DDP4J_SHARED_MIN_BYTES} read peers' buffers through those mappings. Fails
 * if the path silently falls back, or runs when it should not.
 */
class SharedHostMemoryTest {

  private static final Pattern COUNT = Pattern.compile("shared-memory all-reduces: (\\d+)");

  /**
   * {@code min}: DDP4J_SHARED_MIN_BYTES ({@code default}: unset, 256 KiB on 2 ranks, 128 KiB on
   * more); {@code cma}: DDP4J_CMA_DISABLE (the shared path needs no cross-memory attach).
   */
  @ParameterizedTest(name = "{0} ranks, DDP4J_SHARED_MIN_BYTES={1}, DDP4J_CMA_DISABLE={2}")
  @CsvSource({
    "2, 1, 1",
    "3, 1, 0",
    "4, default, 1",
    "2, default, 0",
    "2, off, 1",
  })
  void shouldMatchTheReferenceReadingPeersInPlace(int ranks, String min, String cmaDisabled)
      throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("DDP4J_CMA_DISABLE", cmaDisabled);
    env.put("DDP4J_DEBUG", "INFO");
    if (!min.equals("default")) {
      env.put("DDP4J_SHARED_MIN_BYTES", min);
    }
    List<Outcome> outcomes = RankProcesses.run(ranks, env, SharedMemoryScenario.class, 300);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " passed");
      long count = sharedAllReduces(o, all);
      if (min.equals("off")) {
        assertThat(count).as(all).isZero();
      } else {
        // float32/float64/int and byte types, in and out of place, at the sizes the window
        // covers, plus the 64 MiB one: far more than a handful
        assertThat(count)
            .as("shared-memory all-reduces on rank %d\n%s", o.rank(), all)
            .isGreaterThan(min.equals("1") ? 300 : 40);
      }
    }
    assertThat(outcomes.get(0).output())
        .contains("shared host memory #0: " + ((64L << 20) + 4096) + " bytes mapped by all");
  }

  @Test
  void shouldNameBothSizesWhenRanksAllocateDifferently() throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(2, Map.of(), SharedMemoryScenario.class, 120, "mismatch");
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " saw the allocation mismatch");
    }
    assertThat(all)
        .contains("rank 1 asked for 200 bytes but rank 0 for 100")
        .contains("rank 0 asked for 100 bytes but rank 1 for 200");
  }

  @Test
  void shouldNameTheRankThatNeverAllocates() throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(2, Map.of(), SharedMemoryScenario.MissingRank.class, 120);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
    }
    assertThat(outcomes.get(0).output()).contains("rank 0 saw the missing rank");
  }

  private static long sharedAllReduces(Outcome o, String all) {
    Matcher m = COUNT.matcher(o.output());
    assertThat(m.find()).as("rank %d printed its count\n%s", o.rank(), all).isTrue();
    return Long.parseLong(m.group(1));
  }
}
