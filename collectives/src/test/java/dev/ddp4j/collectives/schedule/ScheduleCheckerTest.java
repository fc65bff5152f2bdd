package dev.ddp4j.collectives.schedule;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checker must catch each way a schedule can be wrong; these schedules are broken on purpose.
 */
class ScheduleCheckerTest {

  private static Schedule twoRanks(
      CollectiveKind kind, long count, List<Step> rank0, List<Step> rank1) {
    return new Schedule(
        kind,
        "handmade",
        2,
        count,
        kind == CollectiveKind.BROADCAST ? 0 : -1,
        List.of(new RankSchedule(0, List.of(rank0)), new RankSchedule(1, List.of(rank1))));
  }

  @Test
  void shouldFindADeadlockWhenBothRanksReceiveFirst() {
    Schedule s =
        twoRanks(
            CollectiveKind.ALL_REDUCE,
            2,
            List.of(Step.recvReduce(1, 0, 2), Step.send(1, 0, 2)),
            List.of(Step.recvReduce(0, 0, 2), Step.send(0, 0, 2)));
    assertThatThrownBy(() -> ScheduleChecker.check(s))
        .isInstanceOf(ScheduleCheckException.class)
        .hasMessageStartingWith("deadlock in ALL_REDUCE handmade (2 ranks, 2 elements)")
        .hasMessageContaining("rank 0 ch 0 waits at step 0 RECV_REDUCE<-1 [0,2)");
  }

  @Test
  void shouldFindASendThatBlocksForeverOnAFullSlot() {
    // Both ranks send twice before receiving: fine with 2 slots, a deadlock with 1.
    List<Step> r0 =
        List.of(
            Step.send(1, 0, 1), Step.send(1, 1, 1), Step.recvCopy(1, 0, 1), Step.recvCopy(1, 1, 1));
    List<Step> r1 =
        List.of(
            Step.send(0, 0, 1), Step.send(0, 1, 1), Step.recvCopy(0, 0, 1), Step.recvCopy(0, 1, 1));
    Schedule s = twoRanks(CollectiveKind.BROADCAST, 2, r0, r1);
    assertThatThrownBy(() -> ScheduleChecker.check(s, 1)).hasMessageStartingWith("deadlock");
    // With 2 slots it runs, but rank 0 (the root) overwrote its data with rank 1's garbage.
    assertThatThrownBy(() -> ScheduleChecker.check(s, 2))
        .hasMessageContaining("rank 0 ends with element 0 = sum of element 0 over ranks []");
  }

  @Test
  void shouldFindADoubleCountedContribution() {
    List<Step> r0 = List.of(Step.send(1, 0, 1), Step.recvReduce(1, 0, 1));
    List<Step> r1 = List.of(Step.recvReduce(0, 0, 1), Step.send(0, 0, 1));
    assertThatThrownBy(() -> ScheduleChecker.check(twoRanks(CollectiveKind.ALL_REDUCE, 1, r0, r1)))
        .hasMessageContaining(
            "rank 0 ch 0 step RECV_REDUCE<-1 [0,1) counts a rank's contribution to element 0 twice");
  }

  @Test
  void shouldFindMismatchedLengthsAndShiftedReductions() {
    List<Step> r0 = List.of(Step.send(1, 0, 2));
    List<Step> r1 = List.of(Step.recvReduce(0, 0, 1));
    assertThatThrownBy(() -> ScheduleChecker.check(twoRanks(CollectiveKind.ALL_REDUCE, 2, r0, r1)))
        .hasMessageContaining("receives 1 elements but rank 0 sent 2");
    List<Step> shifted = List.of(Step.recvReduce(0, 1, 1));
    assertThatThrownBy(
            () ->
                ScheduleChecker.check(
                    twoRanks(CollectiveKind.ALL_REDUCE, 2, List.of(Step.send(1, 0, 1)), shifted)))
        .hasMessageContaining("reduces element 0 into element 1");
  }

  @Test
  void shouldFindAMessageNobodyReceivedAndAnIncompleteResult() {
    List<Step> r0 = new ArrayList<>(List.of(Step.send(1, 0, 1)));
    assertThatThrownBy(
            () -> ScheduleChecker.check(twoRanks(CollectiveKind.ALL_REDUCE, 1, r0, List.of())))
        .hasMessageContaining("rank 0 sent 1 message(s) on channel 0 that rank 1 never received");
    assertThatThrownBy(
            () ->
                ScheduleChecker.check(twoRanks(CollectiveKind.ALL_REDUCE, 1, List.of(), List.of())))
        .hasMessageContaining(
            "rank 0 ends with element 0 = sum of element 0 over ranks [0], expected")
        .hasMessageContaining("over ranks [0, 1]");
  }

  @Test
  void shouldRefuseStepsOutsideTheBufferOrToItself() {
    assertThatThrownBy(
            () ->
                ScheduleChecker.check(
                    twoRanks(CollectiveKind.ALL_REDUCE, 1, List.of(Step.send(1, 0, 2)), List.of())))
        .hasMessageContaining("range ends past the working buffer of 1 elements");
    assertThatThrownBy(
            () ->
                ScheduleChecker.check(
                    twoRanks(CollectiveKind.ALL_REDUCE, 1, List.of(Step.send(0, 0, 1)), List.of())))
        .hasMessageContaining("peer 0 is not another rank of 2");
  }
}
