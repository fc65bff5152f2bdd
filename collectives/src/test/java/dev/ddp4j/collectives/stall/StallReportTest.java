package dev.ddp4j.collectives.stall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.stall.LedgerSnapshot.Entry;
import dev.ddp4j.spi.FutureWork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Who reports a stall and what its line says, from snapshots as ranks publish them. */
class StallReportTest {

  private static final long NOW = 1_000_000;
  private static final long STALE_MS = 1_750;
  private static final String AR = "allReduce of 16 float32 with SUM";

  @Test
  void theLowestWaitingRankShouldNameAnIdleRankWithItsLastCollective() {
    List<LedgerSnapshot> all =
        List.of(waiting(0, 17, 30_000), idle(1, 16, 31_000), waiting(2, 17, 29_000));
    StallReport r = StallReport.of("cpu group g0", 0, all, NOW, STALE_MS);
    assertThat(r.line())
        .isEqualTo(
            "stall in cpu group g0: rank 1 has not called a collective for 31 s (last: allReduce"
                + " #16; now at Train.main(Train.java:9)); ranks 0, 2 have waited 30 s in allReduce #17"
                + " (Train.main(Train.java:9))");
    assertThat(r.culprits()).containsExactly(1);
    assertThat(StallReport.of("cpu group g0", 2, all, NOW, STALE_MS)).isNull();
  }

  @Test
  void aSilentRankShouldBeNamedEvenWhenItsLastSnapshotSaysItWaitsToo() {
    LedgerSnapshot stopped = snapshot(1, NOW - 5_000, entry(17, AR, 6_000), entry(17, AR, 6_000));
    List<LedgerSnapshot> all = List.of(waiting(0, 17, 6_000), stopped, waiting(2, 17, 6_000));
    StallReport r = StallReport.of("cpu group g0", 0, all, NOW, STALE_MS);
    assertThat(r.line())
        .startsWith(
            "stall in cpu group g0: rank 1 has been silent for 5.0 s (no heartbeat: the process is"
                + " stopped, frozen or swapping; last seen in allReduce #17 (Train.main(Train.java:9)));"
                + " ranks 0, 2 have waited 6.0 s in allReduce #17");
    assertThat(r.culprits()).containsExactly(1);
  }

  @Test
  void aRankInADifferentCollectiveWithTheSameNumberShouldBeNamedWithIt() {
    String bc = "broadcast of 8 int32 from root 0";
    List<LedgerSnapshot> all =
        List.of(waiting(0, 4, 40_000), fresh(1, entry(4, bc, 40_000), entry(4, bc, 40_000)));
    StallReport r = StallReport.of("cuda group 1", 0, all, NOW, STALE_MS);
    assertThat(r.line())
        .isEqualTo(
            "stall in cuda group 1: rank 1 is in broadcast of 8 int32 from root 0 #4, a different"
                + " collective (Train.main(Train.java:9)); rank 0 has waited 40 s in allReduce #4"
                + " (Train.main(Train.java:9))");
  }

  @Test
  void aRankStillInAnEarlierCollectiveShouldReportItselfAndTheOthersDefer() {
    List<LedgerSnapshot> all =
        List.of(waiting(0, 9, 31_000), waiting(1, 8, 32_000), idle(2, 7, 33_000));
    assertThat(StallReport.of("cpu group g0", 0, all, NOW, STALE_MS)).isNull();
    StallReport r = StallReport.of("cpu group g0", 1, all, NOW, STALE_MS);
    assertThat(r.line())
        .isEqualTo(
            "stall in cpu group g0: rank 2 has not called a collective for 33 s (last: allReduce"
                + " #7; now at Train.main(Train.java:9)); rank 1 has waited 32 s in allReduce #8"
                + " (Train.main(Train.java:9))");
  }

  @Test
  void ranksInTheSamePlaceShouldShareOneClause() {
    List<LedgerSnapshot> all = new ArrayList<>();
    all.add(waiting(0, 0, 3_000));
    for (int q = 1; q < 5; q++) {
      all.add(fresh(q, null)); // never called a collective
    }
    all.add(null); // never published
    StallReport r = StallReport.of("cpu group g0", 0, all, NOW, STALE_MS);
    assertThat(r.line())
        .isEqualTo(
            "stall in cpu group g0: ranks 1-4 have not called a collective yet; rank 5 has"
                + " published nothing (did it create this group?); rank 0 has waited 3.0 s in"
                + " allReduce #0 (Train.main(Train.java:9))");
    assertThat(r.culprits()).containsExactly(1, 2, 3, 4, 5);
  }

  @Test
  void whenEveryRankWaitsInTheCollectiveTheLineShouldSaySo() {
    List<LedgerSnapshot> all = List.of(waiting(0, 3, 31_000), waiting(1, 3, 31_000));
    StallReport r = StallReport.of("cpu group g0", 0, all, NOW, STALE_MS);
    assertThat(r.line())
        .startsWith("stall in cpu group g0: ranks 0, 1 have waited 31 s in allReduce #3")
        .contains("every rank called it and answers");
    assertThat(r.culprits()).isEmpty();
  }

  @Test
  void aLedgerShouldSurviveTheStoreRoundTripWithItsCallSiteAndOldestUnfinishedCall()
      throws InterruptedException {
    CollectiveLedger ledger = new CollectiveLedger("cpu group g0");
    FutureWork first = new FutureWork(0, "allReduce", Duration.ofSeconds(1), List::of);
    FutureWork second = new FutureWork(1, "barrier", Duration.ofSeconds(1), List::of);
    ledger.issued(first, () -> AR);
    CountDownLatch issued = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread user =
        new Thread(
            () -> {
              try {
                userland.CollectiveCaller.issueAndWait(ledger, second, "barrier", issued, release);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    user.start();
    issued.await();
    first.complete();
    CollectiveLedger.Call pending = ledger.oldestUnfinished();
    LedgerSnapshot s =
        LedgerSnapshot.decode(
            LedgerSnapshot.encode(3, NOW, pending, ledger.recent(), "cpu group g1", pending));
    release.countDown();
    user.join();
    assertThat(s.rank()).isEqualTo(3);
    assertThat(s.atMs()).isEqualTo(NOW);
    assertThat(s.pending().sequence()).isEqualTo(1);
    assertThat(s.pending().op()).isEqualTo("barrier");
    // Taken from the issuing thread, which waits in user code.
    assertThat(s.pending().site())
        .startsWith("CollectiveCaller.issueAndWait(CollectiveCaller.java:");
    assertThat(s.recent()).extracting(Entry::what).containsExactly(AR, "barrier");
    assertThat(s.elsewhere().group()).isEqualTo("cpu group g1");
    second.complete();
    assertThat(ledger.oldestUnfinished()).isNull();
  }

  @Test
  void rankListsShouldCollapseRuns() {
    assertThat(StallReport.ranks(List.of(3))).isEqualTo("rank 3");
    assertThat(StallReport.ranks(List.of(0, 1))).isEqualTo("ranks 0, 1");
    assertThat(StallReport.ranks(Arrays.asList(0, 1, 2, 5, 7, 8, 9)))
        .isEqualTo("ranks 0-2, 5, 7-9");
  }

  @Test
  void theWarningTimeShouldBeReadWithItsDefaultAndOff() {
    assertThat(StallInspector.warnMs(dev.ddp4j.spi.Settings.empty())).isEqualTo(30_000);
    assertThat(
            StallInspector.warnMs(
                dev.ddp4j.spi.Settings.of(java.util.Map.of("DDP4J_STALL_WARN_SECONDS", "2.5"))))
        .isEqualTo(2_500);
    assertThat(
            StallInspector.warnMs(
                dev.ddp4j.spi.Settings.of(java.util.Map.of("DDP4J_STALL_WARN_SECONDS", "off"))))
        .isZero();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                StallInspector.warnMs(
                    dev.ddp4j.spi.Settings.of(
                        java.util.Map.of("DDP4J_STALL_WARN_SECONDS", "soon"))))
        .isInstanceOf(dev.ddp4j.ConfigException.class)
        .hasMessage(
            "DDP4J_STALL_WARN_SECONDS=soon (expected: a number of seconds, e.g. 30, or off to turn"
                + " the stall inspector off)");
  }

  private static Entry entry(long seq, String what, long agoMs) {
    return new Entry(seq, what, NOW - agoMs, "Train.main(Train.java:9)");
  }

  private static LedgerSnapshot snapshot(int rank, long atMs, Entry pending, Entry last) {
    return new LedgerSnapshot(rank, atMs, pending, last == null ? List.of() : List.of(last), null);
  }

  private static LedgerSnapshot fresh(int rank, Entry pending, Entry last) {
    return snapshot(rank, NOW - 100, pending, last);
  }

  private static LedgerSnapshot fresh(int rank, Entry last) {
    return snapshot(rank, NOW - 100, null, last);
  }

  private static LedgerSnapshot waiting(int rank, long seq, long agoMs) {
    return fresh(rank, entry(seq, AR, agoMs), entry(seq, AR, agoMs));
  }

  private static LedgerSnapshot idle(int rank, long lastSeq, long agoMs) {
    return fresh(rank, entry(lastSeq, AR, agoMs));
  }
}
