package dev.ddp4j.spi;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.HostBuffer;
import org.junit.jupiter.api.Test;

/**
 * The local checks the cuda and nccl groups make before a point-to-point, rooted or all-to-all call
 * queues anything (the same for host buffers): a peer must be another rank, root's buffers must
 * hold size blocks, an all-to-all's count must split into size blocks.
 */
class DeviceP2pChecksTest {

  @Test
  void shouldRefuseAPeerThatIsNotAnotherRankNamingIt() {
    assertThatThrownBy(() -> CollectiveChecks.peer("isend", 4, 0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("isend: peer 4")
        .hasMessageContaining("0 <= peer < 4");
    assertThatThrownBy(() -> CollectiveChecks.peer("irecv", 2, 2, 4))
        .hasMessageContaining("irecv: peer 2")
        .hasMessageContaining("not 2");
    assertThatCode(() -> CollectiveChecks.peer("isend", 3, 0, 4)).doesNotThrowAnyException();
  }

  @Test
  void shouldCheckRootsBuffersOnRootOnly() {
    HostBuffer part = HostBuffer.of(new float[3]);
    HostBuffer whole = HostBuffer.of(new float[8]);
    assertThatThrownBy(() -> CollectiveChecks.gather(part, whole, 0, 0, 3))
        .hasMessageContaining("gather")
        .hasMessageContaining("whole = part x 3 ranks = 9");
    assertThatThrownBy(() -> CollectiveChecks.scatter(whole, part, 1, 1, 3))
        .hasMessageContaining("scatter");
    // Off root the output (gather) or input (scatter) is not read and may be null.
    assertThatCode(() -> CollectiveChecks.gather(part, null, 0, 1, 3)).doesNotThrowAnyException();
    assertThatCode(() -> CollectiveChecks.scatter(null, part, 0, 2, 3)).doesNotThrowAnyException();
    assertThatThrownBy(() -> CollectiveChecks.gather(part, null, 3, 1, 3))
        .hasMessageContaining("gather: root 3 is not a rank");
  }

  @Test
  void shouldRefuseAnAllToAllWhoseCountDoesNotSplitIntoBlocks() {
    HostBuffer in = HostBuffer.of(new float[10]);
    HostBuffer out = HostBuffer.of(new float[10]);
    assertThatThrownBy(() -> CollectiveChecks.allToAll(in, out, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10 elements do not split into 4 blocks");
    assertThatCode(() -> CollectiveChecks.allToAll(in, out, 5)).doesNotThrowAnyException();
    assertThatThrownBy(() -> CollectiveChecks.allToAll(in, HostBuffer.of(new float[5]), 5))
        .hasMessageContaining("allToAll");
  }
}
