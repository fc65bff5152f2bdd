package dev.ddp4j.collectives.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hierarchical columns' NCCL communicators of a cuda group on 2 hosts x 2 ranks, across four
 * real processes sharing a file store, up to where a GPU would be needed: each column's members get
 * their own unique id and a communicator of 2 ranks, and when one member cannot connect the others
 * stop at once (not after the timeout), so that the column falls back as a whole. The library is
 * the test stand-in built by gcc (skipped without gcc).
 */
class NcclSubGroupTest {

  private static final int RANKS = 4;

  @TempDir Path dir;

  private LocalRanks.Result run(Map<String, String> extra) throws Exception {
    Optional<Path> lib = FakeNccl.build(Files.createDirectories(dir.resolve("fake")));
    assumeTrue(lib.isPresent(), "needs gcc to build the NCCL stand-in");
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(dir));
    env.put("DDP4J_NCCL_LIBRARY", lib.get().toString());
    env.put("FAKE_NCCL_LOG", dir.resolve("calls.log").toString());
    env.putAll(extra);
    LocalRanks.Result r =
        LocalRanks.run(
            RANKS,
            NcclTestMain.class.getName(),
            List.of("column"),
            List.of(),
            Duration.ofMinutes(2),
            env);
    for (int i = 0; i < RANKS; i++) {
      System.out.println("---- rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    assertThat(r.exitCodes()).containsOnly(0);
    return r;
  }

  @Test
  void shouldGiveEachColumnACommunicatorOfItsOwnRanks() throws Exception {
    LocalRanks.Result r = run(Map.of());
    for (int rank = 0; rank < RANKS; rank++) {
      assertThat(r.outputs().get(rank))
          .contains("column " + rank % 2 + " member " + rank / 2 + " of 2 ready");
    }
    List<String> inits =
        Files.readAllLines(dir.resolve("calls.log")).stream()
            .filter(l -> l.contains(": init"))
            .toList();
    assertThat(inits).hasSize(RANKS).allSatisfy(l -> assertThat(l).contains("init nranks 2 rank"));
    // Two columns, two unique ids: each made by its own member 0.
    assertThat(inits.stream().map(l -> l.substring(l.indexOf("id from pid"))).distinct())
        .hasSize(2);
  }

  @Test
  void shouldStopEveryMemberAtOnceWhenOneCannotConnect() throws Exception {
    long t0 = System.nanoTime();
    // Member 1 of each column sees ncclSystemError; member 0 would wait in its set-up.
    LocalRanks.Result r =
        run(
            Map.of(
                "FAKE_NCCL_FAIL_RANK",
                "1",
                "FAKE_NCCL_NEVER_READY",
                "1",
                "NCCL_TEST_TIMEOUT",
                "90"));
    assertThat((System.nanoTime() - t0) / 1e9)
        .as("seconds, well below the 90 s timeout")
        .isLessThan(45);
    for (int rank = 0; rank < RANKS; rank++) {
      String out = r.outputs().get(rank);
      assertThat(out).contains("column " + rank % 2 + " failed: ");
      if (rank / 2 == 1) {
        assertThat(out).contains("ncclSystemError").doesNotContain("ready");
      } else {
        assertThat(out).contains("another member could not create its communicator");
      }
    }
    List<String> calls = Files.readAllLines(dir.resolve("calls.log"));
    assertThat(calls.stream().filter(l -> l.endsWith("abort rank 0"))).hasSize(2);
  }
}
