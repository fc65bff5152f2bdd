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
 * The nccl group's set-up across three real processes sharing a file store, up to the point where a
 * GPU would be needed: rank 0's unique id reaching every rank through the store, the non-blocking
 * init polled to its end, and the failures: no NCCL on rank 0 failing every rank at once with its
 * reason, and a rank that never joins named by the others, whose communicators are aborted. The
 * library is the test stand-in built by gcc (skipped without gcc).
 */
class NcclJoinTest {

  private static final int RANKS = 3;

  @TempDir Path dir;

  private LocalRanks.Result join(Map<String, String> env) throws Exception {
    LocalRanks.Result r =
        LocalRanks.run(
            RANKS,
            NcclTestMain.class.getName(),
            List.of("join"),
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

  private Map<String, String> withFake() throws Exception {
    Optional<Path> lib = FakeNccl.build(Files.createDirectories(dir.resolve("fake")));
    assumeTrue(lib.isPresent(), "needs gcc to build the NCCL stand-in");
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(dir));
    env.put("DDP4J_NCCL_LIBRARY", lib.get().toString());
    env.put("FAKE_NCCL_LOG", dir.resolve("calls.log").toString());
    return env;
  }

  @Test
  void shouldFailEveryRankAtOnceWithRankZerosReasonWhenThereIsNoNccl() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    Optional<String> found = NcclTestEnv.machineNccl(empty);
    assumeTrue(found.isEmpty(), () -> "this machine has an NCCL: " + found.orElse(""));
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(empty));
    env.put("NCCL_TEST_TIMEOUT", "120");
    long t0 = System.nanoTime();
    LocalRanks.Result r = join(env);
    assertThat((System.nanoTime() - t0) / 1e9)
        .as("seconds, well below the 120 s timeout")
        .isLessThan(60);
    assertThat(r.outputs().get(0))
        .contains("error ConfigException: no usable NCCL library: DDP4J_NCCL_LIBRARY is unset");
    for (int i = 1; i < RANKS; i++) {
      assertThat(r.outputs().get(i))
          .contains(
              "error ConfigException: rank 0 could not start NCCL: no usable NCCL library:"
                  + " DDP4J_NCCL_LIBRARY is unset")
          .contains("libnccl.so.2");
    }
  }

  @Test
  void shouldHandEveryRankRankZerosUniqueIdAndInitialise() throws Exception {
    LocalRanks.Result r = join(withFake());
    String id = idOf(r.outputs().get(0));
    assertThat(id).hasSize(256);
    for (String out : r.outputs()) {
      assertThat(idOf(out)).isEqualTo(id);
      assertThat(out).contains("joined").contains("finalized null");
    }
    // The stand-in read the id passed by value: every rank's init names rank 0's pid in it.
    int maker = Integer.reverseBytes(Integer.parseUnsignedInt(id.substring(0, 8), 16));
    List<String> inits =
        Files.readAllLines(dir.resolve("calls.log")).stream()
            .filter(l -> l.contains(": init"))
            .toList();
    assertThat(inits)
        .hasSize(RANKS)
        .allSatisfy(l -> assertThat(l).endsWith("id from pid " + maker));
    for (int i = 0; i < RANKS; i++) {
      String rank = "init nranks 3 rank " + i + " ";
      assertThat(inits).anySatisfy(l -> assertThat(l).contains(rank));
    }
  }

  @Test
  void shouldAbortAndNameTheRankThatNeverJoined() throws Exception {
    Map<String, String> env = withFake();
    env.put("FAKE_NCCL_NEVER_READY", "1");
    env.put("NCCL_TEST_SKIP_JOIN", "2");
    env.put("NCCL_TEST_TIMEOUT", "3");
    LocalRanks.Result r = join(env);
    for (int i = 0; i < 2; i++) {
      assertThat(r.outputs().get(i))
          .contains(
              "error DdpTimeoutException: nccl group on rank "
                  + i
                  + ": ncclCommInitRankConfig did not finish within 3 s: missing ranks [2] never joined")
          .contains("the communicator was aborted")
          .contains("missing [2]");
    }
    List<String> calls = Files.readAllLines(dir.resolve("calls.log"));
    assertThat(calls).anySatisfy(l -> assertThat(l).endsWith("abort rank 0"));
    assertThat(calls).anySatisfy(l -> assertThat(l).endsWith("abort rank 1"));
    assertThat(calls).noneSatisfy(l -> assertThat(l).contains("rank 2"));
  }

  private static String idOf(String output) {
    return output.lines().filter(l -> l.startsWith("id ")).findFirst().orElseThrow().substring(3);
  }
}
