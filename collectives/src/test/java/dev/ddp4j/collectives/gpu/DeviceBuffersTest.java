package dev.ddp4j.collectives.gpu;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import org.junit.jupiter.api.Test;

/** The device groups' buffer checks that need no GPU (only addresses). */
class DeviceBuffersTest {

  private static DeviceBuffer at(long address, long count) {
    return new DeviceBuffer(address, 0, 0, count, DataType.FLOAT32);
  }

  @Test
  void shouldRefuseAnAllToAllWhoseInputAndOutputOverlap() {
    assertThatThrownBy(() -> DeviceBuffers.disjoint("allToAll", at(4096, 8), at(4096 + 16, 8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allToAll: input and output overlap");
    assertThatThrownBy(() -> DeviceBuffers.disjoint("allToAll", at(4096, 8), at(4096, 8)))
        .hasMessageContaining("overlap");
    assertThatCode(() -> DeviceBuffers.disjoint("allToAll", at(4096, 8), at(4096 + 32, 8)))
        .doesNotThrowAnyException();
    assertThatCode(() -> DeviceBuffers.disjoint("allToAll", at(4096, 0), at(4096, 0)))
        .doesNotThrowAnyException();
  }

  @Test
  void shouldTakeARanksBlockInPlaceOrADisjointPartForGather() {
    DeviceBuffer whole = at(8192, 12);
    assertThatCode(() -> DeviceBuffers.blockOrDisjoint("gather", 1, at(8192 + 16, 4), whole))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> DeviceBuffers.blockOrDisjoint("gather", 1, at(8192 + 4, 4), whole))
        .hasMessageContaining("not block 1");
  }
}
