package dev.ddp4j.collectives.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class HierarchicalSchedulesTest {

  private static final List<List<int[]>> SHAPES =
      List.of(
          List.of(new int[] {0, 1}, new int[] {2, 3}),
          List.of(new int[] {0, 1, 2}, new int[] {3, 4, 5}),
          List.of(new int[] {0, 2}, new int[] {1, 3}, new int[] {4, 5}),
          List.of(new int[] {3, 1, 0, 2}, new int[] {7, 6, 4, 5}));

  @Test
  void everyPipelineShouldReduceRightWithOneSlot() {
    for (List<int[]> islands : SHAPES) {
      for (int chunks : new int[] {1, 2, 3, 8}) {
        for (int channels : new int[] {1, 2, 3}) {
          for (long count : new long[] {1, 7, 97, 1000}) {
            ScheduleChecker.check(
                HierarchicalSchedules.allReduce(islands, count, channels, 5, chunks));
          }
        }
      }
    }
  }

  /** The column runs on lane 1, the island on lane 0, in the order the cuda route queues them. */
  @Test
  void shouldListPhasesAsTheCudaRouteQueuesThem() {
    List<int[]> islands = List.of(new int[] {0, 1}, new int[] {2, 3});
    Schedule s = HierarchicalSchedules.allReduce(islands, 64, 1, 1000, 3);
    List<Step> rank0 = s.rank(0).channels().get(0);
    StringBuilder phases = new StringBuilder();
    for (Step step : rank0) {
      String phase =
          step.lane() == HierarchicalSchedules.COLUMN_LANE
              ? "X"
              : step.kind() == StepKind.RECV_COPY ? "G" : "S";
      if (step.kind() != StepKind.SEND) {
        phases.append(phase);
      }
      assertThat(step.peer()).isEqualTo(step.lane() == 1 ? 2 : 1);
    }
    // Receives only: RS(0) X(0) X(0) | RS(1) AG(0) X(1) X(1) | RS(2) AG(1) X(2) X(2) | AG(2).
    assertThat(phases.toString()).isEqualTo("SXX" + "SGXX" + "SGXX" + "G");
  }

  @Test
  void shouldRefuseNoChunks() {
    List<int[]> islands = List.of(new int[] {0, 1}, new int[] {2, 3});
    assertThatThrownBy(() -> HierarchicalSchedules.allReduce(islands, 64, 1, 8, 0))
        .hasMessageContaining("chunks 0");
  }
}
