package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.CONTROL_BYTES;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.MESSAGE_SLOTS;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.RING_HEADER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpException;
import dev.ddp4j.collectives.reduce.UnsafeMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One ring of a real mapped file, both ends in this thread: FIFO, back-pressure, wrap-around. */
class ShmRingTest {

  @TempDir Path dir;

  @Test
  void shouldDeliverPiecesInOrderAndPushBackWhenEverySlotIsFull() {
    ShmRingDescriptor layout = new ShmRingDescriptor(2, 1, 4, 4096);
    try (ShmSegment receiver = ShmSegment.create(dir, dir, "ring", layout.fileBytes());
        ShmSegment sender = ShmSegment.open(receiver.path(), layout.fileBytes())) {
      long ringAtReceiver = receiver.address() + layout.ringOffset(0, 1);
      long ringAtSender = sender.address() + layout.ringOffset(0, 1);
      SendPort out = new ShmSendPort(ringAtSender, layout, 0, "SHM over NODE");
      RecvPort in = new ShmRecvPort(ringAtReceiver, layout, 0);
      byte[] piece = new byte[4096];
      PieceTag tag = new PieceTag();
      PieceTag seen = new PieceTag();
      long sent = 0;
      long received = 0;
      for (int round = 0; round < 10; round++) { // 10 x 3 pieces through 4 slots wraps around
        while (sent - received < 4) {
          piece[0] = (byte) sent;
          assertThat(
                  out.offer(piece, UnsafeMemory.BYTE_BASE, 100 + (int) sent, tag.set(sent, 7, 3)))
              .isTrue();
          sent++;
        }
        assertThat(out.offer(piece, UnsafeMemory.BYTE_BASE, 1, tag)).as("ring full").isFalse();
        for (int k = 0; k < 3; k++) {
          assertThat(in.poll()).isTrue();
          in.tag(seen);
          assertThat(seen.sequence).isEqualTo(received);
          assertThat(in.lengthBytes()).isEqualTo(100 + (int) received);
          assertThat(UNSAFE.getByte(in.address())).isEqualTo((byte) received);
          in.release();
          received++;
        }
      }
      while (received < sent) {
        assertThat(in.poll()).isTrue();
        in.release();
        received++;
      }
      assertThat(in.poll()).as("ring empty").isFalse();
    }
  }

  @Test
  void messageRingsShouldFollowTheCollectivesRingsWithTwoSlotsAndEndTheFile() {
    ShmRingDescriptor layout = new ShmRingDescriptor(3, 2, 8, 4096);
    long collectiveRing = RING_HEADER + 8 * layout.slotStride();
    long messageRing = RING_HEADER + MESSAGE_SLOTS * layout.slotStride();
    assertThat(layout.ringOffset(1, 2)).isEqualTo(CONTROL_BYTES + 5 * collectiveRing);
    assertThat(layout.ringOffset(2, 0)).isEqualTo(CONTROL_BYTES + 6 * collectiveRing);
    assertThat(layout.fileBytes()).isEqualTo(CONTROL_BYTES + 6 * collectiveRing + 3 * messageRing);
    try (ShmSegment receiver = ShmSegment.create(dir, dir, "messages", layout.fileBytes());
        ShmSegment sender = ShmSegment.open(receiver.path(), layout.fileBytes())) {
      SendPort out =
          new ShmSendPort(sender.address() + layout.ringOffset(2, 2), layout, 2, "SHM over NODE");
      RecvPort in = new ShmRecvPort(receiver.address() + layout.ringOffset(2, 2), layout, 2);
      byte[] piece = new byte[4096];
      PieceTag tag = new PieceTag();
      for (int k = 0; k < MESSAGE_SLOTS; k++) {
        piece[4095] = (byte) (k + 1); // the last slot's last byte is the file's last byte
        assertThat(out.offer(piece, UnsafeMemory.BYTE_BASE, 4096, tag.set(k, 0, 0))).isTrue();
      }
      assertThat(out.offer(piece, UnsafeMemory.BYTE_BASE, 1, tag))
          .as("message ring full")
          .isFalse();
      assertThat(UNSAFE.getByte(receiver.address() + layout.fileBytes() - 1)).isEqualTo((byte) 2);
      assertThat(in.poll()).isTrue();
      assertThat(UNSAFE.getByte(in.address() + 4095)).isEqualTo((byte) 1);
      in.release();
      assertThat(out.offer(piece, UnsafeMemory.BYTE_BASE, 1, tag)).as("a slot freed").isTrue();
    }
  }

  @Test
  void shouldRemoveRingFilesOfProcessesThatAreGoneButKeepTheLivingOnes() throws Exception {
    Path orphan = Files.createFile(dir.resolve("ddp4j-" + Integer.MAX_VALUE + "-dead0.r0"));
    Path living =
        Files.createFile(dir.resolve("ddp4j-" + ProcessHandle.current().pid() + "-abc1.r1"));
    Path unrelated = Files.createFile(dir.resolve("ddp4j-notapid.r0"));
    ShmSegment.removeOrphans(dir);
    assertThat(orphan).doesNotExist();
    assertThat(living).exists();
    assertThat(unrelated).exists();
  }

  @Test
  void shouldFallBackWhenTheSharedMemoryFolderIsMissing() throws Exception {
    Path fallback = Files.createDirectory(dir.resolve("fallback"));
    try (ShmSegment s = ShmSegment.create(dir.resolve("no-such-shm"), fallback, "x", 8192)) {
      assertThat(s.path().getParent()).isEqualTo(fallback);
      s.unlink();
      assertThat(Files.exists(s.path())).isFalse();
    }
  }

  @Test
  void shouldNameTheSizesAndTheFixWhenNoFolderHasRoom() {
    assertThatThrownBy(() -> ShmSegment.create(dir, dir, "huge", Long.MAX_VALUE / 4))
        .isInstanceOf(DdpException.class)
        .hasMessageContaining("no room for shared memory")
        .hasMessageContaining("--shm-size")
        .hasMessageContaining("DDP4J_SHM_DISABLE=1");
  }
}
