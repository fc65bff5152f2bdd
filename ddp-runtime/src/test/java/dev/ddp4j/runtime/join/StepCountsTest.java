package dev.ddp4j.runtime.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.runtime.nd4jcuda.NdCollectives;
import dev.ddp4j.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** StepCounts on real cpu groups, one thread per rank. */
class StepCountsTest {

  /** What a rank does with its group and counts; returns what the test checks. */
  interface RankBody {
    long[] run(int rank, ProcessGroup group, StepCounts counts) throws Exception;
  }

  private static List<long[]> onRanks(int ranks, Duration countTimeout, RankBody body)
      throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<long[]>> runs = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        runs.add(
            pool.submit(
                () -> {
                  WorkerEnvironment w =
                      new WorkerEnvironment(
                          rank, ranks, rank, ranks, 0, 0, InitMethod.tcp("127.0.0.1", 1));
                  try (ProcessGroup g =
                      TestGroups.create(w, store, Duration.ofSeconds(60), Map.of())) {
                    return body.run(rank, g, new StepCounts(NdCollectives.of(g), countTimeout));
                  }
                }));
      }
      List<long[]> out = new ArrayList<>();
      for (Future<long[]> f : runs) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void shouldSumEachCountOverTheRanks() throws Exception {
    List<long[]> seen =
        onRanks(
            3,
            Duration.ofSeconds(30),
            (rank, g, counts) -> {
              counts.announce(rank != 2, rank == 2);
              long first = counts.ranksWithNext();
              long unable = counts.ranksUnableToReplay();
              // Rank 2 replays (no examples, not training); rank 0 has a batch after this step.
              counts.start(rank == 2 ? 0 : 5 + rank, rank != 2, rank == 0);
              return new long[] {
                first, unable, counts.examples(), counts.trainingRanks(), counts.ranksWithNext()
              };
            });
    for (long[] s : seen) {
      assertThat(s).containsExactly(2, 1, 11, 2, 1);
    }
  }

  @Test
  void aCountStartedBeforeTheStepsCollectivesShouldNeverBlockAfterThem() throws Exception {
    int steps = 20;
    List<long[]> seen =
        onRanks(
            2,
            Duration.ofSeconds(30),
            (rank, g, counts) -> {
              counts.announce(true, false);
              float[] gradient = new float[4096];
              for (int s = 0; s < steps; s++) {
                counts.start(8, true, s < steps - 1);
                // The step's gradient all-reduce, issued after the count: once it is done, so is
                // the count (a group's collectives complete in issue order).
                g.allReduce(HostBuffer.of(gradient), ReduceOp.SUM).await();
                assertThat(counts.examples()).isEqualTo(16);
              }
              return new long[] {counts.blockingWaits(), counts.ranksWithNext()};
            });
    for (long[] s : seen) {
      assertThat(s).as("only the epoch's announce blocked").containsExactly(1, 0);
    }
  }

  @Test
  void aWaitForAMissingRankShouldTimeOutNamingItAndSucceedOnceItArrives() throws Exception {
    CountDownLatch timedOut = new CountDownLatch(1);
    List<long[]> seen =
        onRanks(
            2,
            Duration.ofMillis(300),
            (rank, g, counts) -> {
              if (rank == 1) {
                assertThat(timedOut.await(60, TimeUnit.SECONDS)).isTrue();
                counts.start(3, true, false);
                return new long[] {counts.examples(), counts.blockingWaits()};
              }
              counts.start(4, true, false);
              assertThatThrownBy(counts::examples)
                  .isInstanceOf(DdpTimeoutException.class)
                  .hasMessageContaining("ranks that never arrived: [1]");
              timedOut.countDown();
              return new long[] {counts.examples(), counts.blockingWaits()};
            });
    assertThat(seen.get(0)).as("rank 0: the sum, and two blocked waits").containsExactly(7, 2);
    assertThat(seen.get(1)[0]).isEqualTo(7);
  }

  @Test
  void aSecondCountBeforeTheFirstWasAwaitedShouldBeRefused() throws Exception {
    onRanks(
        1,
        Duration.ofSeconds(10),
        (rank, g, counts) -> {
          counts.start(1, true, true);
          assertThatThrownBy(() -> counts.start(1, true, false))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage("a step count was started before the last one was awaited");
          return new long[] {counts.examples()};
        });
  }
}
