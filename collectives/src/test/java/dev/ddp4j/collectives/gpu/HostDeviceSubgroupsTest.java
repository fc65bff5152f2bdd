package dev.ddp4j.collectives.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.spi.Settings;
import dev.ddp4j.testing.StandInDeviceGroup;
import dev.ddp4j.testing.ThreadRanks;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The subgroup of the group a GPU backend returns: its device half is the device group's subgroup
 * (a {@link StandInDeviceGroup} here, where CI has no GPU) and its host half a cpu group of its own
 * members over the subgroup's store, made at its first host call; closing the parent closes it.
 */
class HostDeviceSubgroupsTest {

  @Test
  void shouldGiveEverySubgroupAHostHalfOfItsOwnMembers() throws Exception {
    List<Object> got =
        ThreadRanks.runAll(
            4,
            Duration.ofSeconds(20),
            (w, store, t) ->
                HostDeviceGroup.over(
                    new StandInDeviceGroup(w, store, t), w, store, t, Settings.empty()),
            pg -> {
              HostDeviceGroup half = (HostDeviceGroup) pg.split(pg.rank() % 2, 0).orElseThrow();
              assertThat(half.backend()).isEqualTo("cuda");
              assertThat(half.size()).isEqualTo(2);
              assertThat(half.device().rank()).isEqualTo(pg.rank() / 2);
              assertThat(half.hostHalfStarted()).isFalse();
              float[] v = {pg.rank() + 1};
              half.allReduce(HostBuffer.of(v), ReduceOp.SUM).await();
              assertThat(half.hostHalfStarted()).isTrue();
              DeviceBuffer d = new DeviceBuffer(0x10000, 0, 0, 1, DataType.FLOAT32);
              assertThatThrownBy(() -> half.allReduce(d, ReduceOp.SUM))
                  .hasMessageStartingWith(StandInDeviceGroup.REFUSAL + "allReduce");
              // A subgroup of the subgroup: one rank, its own host half again.
              ProcessGroup self = half.split(half.rank(), 0).orElseThrow();
              float[] one = {7};
              self.allReduce(HostBuffer.of(one), ReduceOp.SUM).await();
              pg.close(); // closes both subgroups first
              assertThatThrownBy(() -> half.allReduce(HostBuffer.of(v), ReduceOp.SUM))
                  .isInstanceOf(IllegalStateException.class);
              assertThat(((StandInDeviceGroup) half.device()).closed()).isTrue();
              return v[0] + "/" + one[0];
            });
    assertThat(got).containsExactly("4.0/7.0", "6.0/7.0", "4.0/7.0", "6.0/7.0");
  }
}
