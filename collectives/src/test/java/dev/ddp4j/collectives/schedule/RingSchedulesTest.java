package dev.ddp4j.collectives.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.testing.RandomCases;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class RingSchedulesTest {

  private static int[] identity(int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; i++) {
      r[i] = i;
    }
    return r;
  }

  private static int[][] randomRings(int n, int channels, long seed) {
    Random rnd = new Random(seed);
    int[][] rings = new int[channels][];
    for (int c = 0; c < channels; c++) {
      List<Integer> perm = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        perm.add(i);
      }
      Collections.shuffle(perm, rnd);
      rings[c] = perm.stream().mapToInt(Integer::intValue).toArray();
    }
    return rings;
  }

  @ParameterizedTest(name = "n={0} count={1} maxStep={2}")
  @CsvSource({
    "1,10,4", "2,0,4", "2,1,4", "2,7,3", "3,10,4", "4,13,2", "8,1,1", "8,100,7", "5,64,64"
  })
  void everyRingCollectiveShouldBeCorrectAndDeadlockFree(int n, long count, long maxStep) {
    int[][] ring = {identity(n)};
    ScheduleChecker.check(RingSchedules.allReduce(ring, count, maxStep));
    ScheduleChecker.check(RingSchedules.allGather(ring, count, maxStep));
    ScheduleChecker.check(RingSchedules.reduceScatter(ring, count, maxStep));
    for (int root = 0; root < n; root++) {
      ScheduleChecker.check(RingSchedules.broadcast(ring, root, count, maxStep));
      ScheduleChecker.check(RingSchedules.broadcast(ring, root, count, maxStep, true));
    }
  }

  static Stream<Arguments> randomRings() {
    return RandomCases.of(
        8000,
        200,
        d ->
            new Object[] {
              d.between(1, 8), d.between(1, 4), d.between(0L, 300L), d.between(1L, 50L), d.anyLong()
            });
  }

  @ParameterizedTest(name = "[{index}] n={0} channels={1} count={2} maxStep={3} seed={4}")
  @MethodSource("randomRings")
  void randomRingsChannelsAndSizesShouldAllCheck(
      int n, int channels, long count, long maxStep, long seed) {
    int[][] rings = randomRings(n, channels, seed);
    ScheduleChecker.check(RingSchedules.allReduce(rings, count, maxStep));
    ScheduleChecker.check(RingSchedules.allGather(rings, count / n + 1, maxStep));
    ScheduleChecker.check(RingSchedules.reduceScatter(rings, count / n + 1, maxStep));
    ScheduleChecker.check(
        RingSchedules.broadcast(rings, (int) Math.floorMod(seed, (long) n), count, maxStep));
    ScheduleChecker.check(
        RingSchedules.broadcast(rings, (int) Math.floorMod(seed, (long) n), count, maxStep, true));
  }

  @ParameterizedTest(name = "n={0}")
  @CsvSource({"2", "3", "5"})
  void confirmedBroadcastShouldMakeTheRootReceiveFromTheChainTail(int n) {
    int[][] ring = {identity(n)};
    for (int root = 0; root < n; root++) {
      Schedule s = RingSchedules.broadcast(ring, root, 10, 4, true);
      List<Step> rootSteps = s.rank(root).channels().get(0);
      int tail = Math.floorMod(root - 1, n);
      assertThat(rootSteps.get(rootSteps.size() - 1)).isEqualTo(Step.recvCopy(tail, 9, 1));
      List<Step> tailSteps = s.rank(tail).channels().get(0);
      assertThat(tailSteps.get(tailSteps.size() - 1)).isEqualTo(Step.send(root, 9, 1));
    }
  }

  @ParameterizedTest(name = "n={0}")
  @CsvSource({"2", "4", "8"})
  void ringAllReduceShouldSendTheBandwidthOptimalAmount(int n) {
    long count = 8 * 1024;
    Schedule s = RingSchedules.allReduce(new int[][] {identity(n)}, count, 1 << 20);
    for (RankSchedule r : s.ranks()) {
      long sent =
          r.channels().get(0).stream()
              .filter(st -> st.kind() == StepKind.SEND)
              .mapToLong(Step::count)
              .sum();
      // 2 (n-1)/n of the buffer, the all-reduce lower bound that busbw is defined against.
      assertThat(sent).isEqualTo(2 * (n - 1) * count / n);
    }
  }

  @ParameterizedTest(name = "maxStep={0}")
  @CsvSource({"1", "5", "1000"})
  void stepsShouldNeverExceedTheSlotSize(long maxStep) {
    Schedule s = RingSchedules.allReduce(new int[][] {identity(3), {2, 1, 0}}, 999, maxStep);
    s.ranks()
        .forEach(
            r ->
                r.channels()
                    .forEach(
                        ch ->
                            ch.forEach(st -> assertThat(st.count()).isLessThanOrEqualTo(maxStep))));
    assertThat(s.channelCount()).isEqualTo(2);
  }

  @ParameterizedTest(name = "n={0}")
  @CsvSource({"2", "3"})
  void theSameInputsShouldGiveTheSameHashAndOtherRingsAnother(int n) {
    Schedule a = RingSchedules.allReduce(new int[][] {identity(n)}, 100, 10);
    Schedule b = RingSchedules.allReduce(new int[][] {identity(n)}, 100, 10);
    assertThat(a.hash()).isEqualTo(b.hash()).hasSize(64);
    assertThat(RingSchedules.allReduce(new int[][] {identity(n)}, 101, 10).hash())
        .isNotEqualTo(a.hash());
    assertThat(a.describe())
        .startsWith("ALL_REDUCE ring n=" + n + " count=100 root=-1\nrank 0 ch 0: SEND->1 [");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {"0,2|ring of channel 0 is [0, 2]", "0,0|ring of channel 0 is [0, 0]"})
  void badRingsShouldBeNamed(String ring, String message) {
    int[] r = java.util.Arrays.stream(ring.split(",")).mapToInt(Integer::parseInt).toArray();
    assertThatThrownBy(() -> RingSchedules.allReduce(new int[][] {r}, 10, 1))
        .hasMessageStartingWith(message)
        .hasMessageContaining("expected: a permutation of the ranks 0..1");
  }
}
