package dev.ddp4j.collectives.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The group a cuda or nccl job gets from {@code Ddp.init()} takes host buffers through its host
 * half, across real rank processes; the device half is stood in (no GPU in CI), the host half is
 * the real cpu group.
 */
class HostDeviceGroupTest {

  private static void assertEveryRank(List<Outcome> outcomes, String line) {
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).as(all).contains("rank " + o.rank() + " " + line);
    }
  }

  @Test
  void shouldRunEveryHostCollectiveThroughTheHostHalfAndDeviceBuffersThroughTheDeviceHalf()
      throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(
            3, Map.of("DDP4J_ALGO", "ll"), HostDeviceScenarios.Correctness.class, 240, "quick");
    // DDP4J_ALGO=ll is a GPU algorithm: the host half must not read it as its own
    assertEveryRank(outcomes, "host and device halves checked");
    assertEveryRank(outcomes, "passed");
  }

  @Test
  void shouldRunPointToPointRootedAndObjectCollectivesOnHostBuffersThroughTheHostHalf()
      throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(3, Map.of(), HostDeviceScenarios.PointToPoint.class, 180);
    assertEveryRank(outcomes, "exchanged 8 MiB both ways");
    assertEveryRank(outcomes, "checked object collectives");
    assertEveryRank(outcomes, "passed");
  }

  @Test
  void shouldReportACountMismatchOfHostCollectivesOnBothRanks() throws Exception {
    assertEveryRank(
        RankProcesses.run(2, Map.of(), HostDeviceScenarios.Mismatch.class, 120),
        "saw the mismatch");
  }

  @ParameterizedTest(name = "missing at {0}")
  @ValueSource(strings = {"collective", "start"})
  void shouldNameTheRankThatNeverMadeTheHostCall(String where) throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(3, Map.of(), HostDeviceScenarios.Missing.class, 120, where);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
    }
    assertThat(outcomes.get(0).output()).as(all).contains("rank 0 saw the missing rank");
    assertThat(outcomes.get(1).output()).as(all).contains("rank 1 saw the missing rank");
  }
}
