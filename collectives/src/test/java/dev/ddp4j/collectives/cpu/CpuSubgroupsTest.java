package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.spi.Settings;
import dev.ddp4j.testing.RankProcessMain;
import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.ThreadRanks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Subgroups of a cpu group of four thread ranks over real shared memory: split and newGroup give
 * each member a group of its own members that sums only theirs, nested subgroups work, closing a
 * subgroup leaves the parent usable and closing the parent closes its subgroups, and bad or
 * disagreeing calls fail on every rank with one line naming the values.
 */
class CpuSubgroupsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private static ProcessGroup open(
      dev.ddp4j.WorkerEnvironment w, dev.ddp4j.Store store, Duration timeout) {
    return CpuProcessGroup.create(
        w, store, timeout, CpuGroupOptions.from(Settings.of(Map.of())), "parent");
  }

  /** The sum over {@code pg} of one float per rank, {@code value}. */
  static float sum(ProcessGroup pg, float value) {
    float[] one = {value};
    pg.allReduce(HostBuffer.of(one), ReduceOp.SUM).await();
    return one[0];
  }

  @Test
  void shouldSplitEvenAndOddRanksIntoGroupsThatSumOnlyTheirMembers() throws Exception {
    List<Object> got =
        ThreadRanks.runAll(
            4,
            TIMEOUT,
            CpuSubgroupsTest::open,
            pg -> {
              ProcessGroup half = pg.split(pg.rank() % 2, pg.rank()).orElseThrow();
              assertThat(half.size()).isEqualTo(2);
              assertThat(half.rank()).isEqualTo(pg.rank() / 2);
              assertThat(half.backend()).isEqualTo("cpu");
              assertThat(half.timeout()).isEqualTo(pg.timeout());
              float mine = sum(half, pg.rank() + 1);
              half.close();
              // The parent and its store outlive the subgroup.
              float all = sum(pg, pg.rank() + 1);
              pg.store().set("after-close/" + pg.rank(), new byte[] {1});
              return mine + "/" + all;
            });
    assertThat(got).containsExactly("4.0/10.0", "6.0/10.0", "4.0/10.0", "6.0/10.0");
  }

  @Test
  void shouldSplitOverSocketsWhereEveryRankIsAHostOfItsOwn() throws Exception {
    List<Object> got =
        ThreadRanks.runAll(
            4,
            TIMEOUT,
            (w, store, t) ->
                CpuProcessGroup.create(
                    w,
                    store,
                    t,
                    CpuGroupOptions.from(Settings.of(Map.of("DDP4J_SHM_DISABLE", "1"))),
                    "sockets"),
            pg -> {
              try (ProcessGroup half = pg.split(pg.rank() / 2, 0).orElseThrow()) {
                float[] v = new float[70_001];
                java.util.Arrays.fill(v, pg.rank() + 1);
                half.allReduce(HostBuffer.of(v), ReduceOp.SUM).await();
                return v[0] + "," + v[v.length - 1];
              }
            });
    assertThat(got).containsExactly("3.0,3.0", "3.0,3.0", "7.0,7.0", "7.0,7.0");
  }

  @Test
  void shouldOrderSplitGroupsByKeyAndLeaveNegativeColorsOut() throws Exception {
    List<Object> got =
        ThreadRanks.runAll(
            4,
            TIMEOUT,
            CpuSubgroupsTest::open,
            pg -> {
              Optional<ProcessGroup> g = pg.split(pg.rank() == 0 ? -1 : 7, -pg.rank());
              if (g.isEmpty()) {
                return "none";
              }
              try (ProcessGroup sub = g.get()) {
                // Key -rank: parent rank 3 is the subgroup's rank 0, and broadcasts as its root.
                float[] v = {pg.rank() * 10};
                sub.broadcast(HostBuffer.of(v), 0).await();
                return sub.rank() + ":" + v[0];
              }
            });
    assertThat(got).containsExactly("none", "2:30.0", "1:30.0", "0:30.0");
  }

  @Test
  void shouldMakeGroupOfThreeRanksInTheGivenOrderWithANestedSubgroup() throws Exception {
    List<Object> got =
        ThreadRanks.runAll(
            4,
            TIMEOUT,
            CpuSubgroupsTest::open,
            pg -> {
              Optional<ProcessGroup> g = pg.newGroup(3, 0, 2);
              if (pg.rank() == 1) {
                assertThat(g).isEmpty();
                return "none";
              }
              ProcessGroup three = g.get();
              assertThat(three.size()).isEqualTo(3);
              float inThree = sum(three, pg.rank() + 1); // 4 + 1 + 3
              // Ranks 1 and 2 of the three are parent ranks 0 and 2.
              Optional<ProcessGroup> n = three.newGroup(1, 2);
              String nested = "-";
              if (n.isPresent()) {
                ProcessGroup two = n.get();
                nested = two.rank() + "=" + sum(two, pg.rank() + 1); // 1 + 3
              }
              // Closing the parent closes both subgroups (the nested one through the three).
              pg.close();
              assertThatThrownBy(() -> sum(three, 1))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("closed");
              if (n.isPresent()) {
                assertThatThrownBy(() -> sum(n.get(), 1)).isInstanceOf(IllegalStateException.class);
              }
              return three.rank() + ":" + inThree + " " + nested;
            });
    assertThat(got).containsExactly("1:8.0 0=4.0", "none", "2:8.0 1=4.0", "0:8.0 -");
  }

  @Test
  void shouldFailOnEveryRankNamingBothListsWhenRanksDisagree() throws Exception {
    List<Object> got =
        ThreadRanks.runAll(
            4,
            TIMEOUT,
            CpuSubgroupsTest::open,
            pg -> {
              int[] ranks = pg.rank() == 3 ? new int[] {0, 2} : new int[] {0, 1};
              Throwable e = catchAny(() -> pg.newGroup(ranks));
              // Nothing was made: the parent still runs collectives.
              return e.getClass().getSimpleName() + " " + e.getMessage() + " | " + sum(pg, 1);
            });
    for (Object o : got) {
      assertThat((String) o)
          .startsWith(CollectiveMismatchException.class.getSimpleName())
          .contains("newGroup([0, 1])", "newGroup([0, 2])")
          .endsWith(" | 4.0");
    }
    assertThat((String) got.get(0))
        .contains(
            "newGroup([0, 1]) #0 on rank 0, but rank 3 called newGroup([0, 2]) (every rank of the"
                + " group must make the same call with the same ranks in the same order)");
  }

  @Test
  void shouldNameTheRankThatNeverCalledNewGroupWhenTheOthersTimeOut() throws Exception {
    List<Object> got =
        ThreadRanks.run(
            4,
            Duration.ofSeconds(3),
            CpuSubgroupsTest::open,
            pg -> pg.rank() == 2 ? "skipped" : pg.newGroup(0, 1));
    assertThat(got.get(2)).isEqualTo("skipped");
    for (int r : new int[] {0, 1, 3}) {
      assertThat(got.get(r)).isInstanceOf(DdpTimeoutException.class);
      DdpTimeoutException e = (DdpTimeoutException) got.get(r);
      assertThat(e.missingRanks()).containsExactly(2);
      assertThat(e.getMessage())
          .startsWith("newGroup([0, 1]) #0 on rank " + r + " timed out after 3 s: ranks [2]");
    }
  }

  @Test
  void shouldRejectBadRanksLocallyInOneLine() throws Exception {
    ThreadRanks.runAll(
        1,
        TIMEOUT,
        (w, s, t) ->
            CpuProcessGroup.create(
                new dev.ddp4j.WorkerEnvironment(0, 1, 0, 1, 0, 0, w.initMethod()),
                s,
                t,
                CpuGroupOptions.from(Settings.of(Map.of())),
                "one"),
        pg -> {
          assertThatThrownBy(() -> pg.newGroup(0, 1))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessage(
                  "newGroup: rank 1 in [0, 1] is not a rank of the group (expected: 0 <= rank"
                      + " < 1)");
          assertThatThrownBy(() -> pg.newGroup(0, 0))
              .hasMessage("newGroup: rank 0 appears twice in [0, 0] (expected: distinct ranks)");
          assertThatThrownBy(() -> pg.newGroup())
              .hasMessage(
                  "newGroup: no ranks given (expected: 1 to 1 distinct ranks of the group)");
          // The checks take no collective slot: the next call is subgroup #0 and runs.
          ProcessGroup self = pg.newGroup(0).orElseThrow();
          assertThat(sum(self, 5)).isEqualTo(5f);
          return null;
        });
  }

  @Test
  void shouldRunSubgroupsAcrossProcessesAndLogTheirOwnRoutes() throws Exception {
    List<RankProcesses.Outcome> outcomes =
        RankProcesses.run(4, Map.of("DDP4J_DEBUG", "INFO"), SplitScenario.class, 180);
    String all = RankProcesses.describe(outcomes);
    for (RankProcesses.Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).as(all).contains("rank " + o.rank() + " subgroups passed");
    }
    // Rank 2 is rank 1 of {0, 2}: its subgroup plans and logs a ring of its own two ranks.
    assertThat(outcomes.get(2).output())
        .as(all)
        .containsPattern(
            "subgroup sub0: rank 1/2, ranks \\[0, 2\\] of this group\\R(.*\\R)*?.*Channel"
                + " 00/\\d\\d : 1\\[1\\] -> 0\\[0\\] via SHM");
  }

  /**
   * Over processes: {0, 2} and {1, 3} by split sum 100 003 floats of their own members, then a
   * group of three of the four and the parent again.
   */
  public static final class SplitScenario implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      int n = 100_003;
      float[] v = new float[n];
      for (int i = 0; i < n; i++) {
        v[i] = pg.rank() + 1 + i % 7;
      }
      try (ProcessGroup half = pg.split(pg.rank() % 2, 0).orElseThrow()) {
        half.allReduce(HostBuffer.of(v), ReduceOp.SUM).await();
      }
      int members = pg.rank() % 2 == 0 ? 1 + 3 : 2 + 4;
      for (int i = 0; i < n; i++) {
        if (v[i] != members + 2 * (i % 7)) {
          throw new AssertionError("element " + i + ": " + v[i]);
        }
      }
      Optional<ProcessGroup> three = pg.newGroup(1, 2, 3);
      if (three.isPresent()) {
        assertThat(sum(three.get(), pg.rank())).isEqualTo(6f);
        three.get().close();
      } else {
        assertThat(pg.rank()).isZero();
      }
      assertThat(sum(pg, 1)).isEqualTo(4f);
      System.out.println("rank " + pg.rank() + " subgroups passed");
    }
  }

  private static Throwable catchAny(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }
}
