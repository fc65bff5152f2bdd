package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.*;

/** Reads pieces in place from one ring of this rank's shared-memory file. */
final class ShmRecvPort implements RecvPort {

  private final long ring;
  private final int slots;
  private final long slotStride;
  private long head;
  private long tailSeen;
  private long slot;

  ShmRecvPort(long ringAddress, ShmRingDescriptor layout, int channel) {
    this.ring = ringAddress;
    this.slots = layout.slots(channel);
    this.slotStride = layout.slotStride();
    this.head = UNSAFE.getLongVolatile(null, ring + HEAD_OFFSET);
    this.tailSeen = head;
  }

  @Override
  public boolean poll() {
    if (head >= tailSeen) {
      tailSeen = UNSAFE.getLongVolatile(null, ring + TAIL_OFFSET); // acquire: slot reads after
      if (head >= tailSeen) {
        return false;
      }
    }
    slot = ring + RING_HEADER + (head % slots) * slotStride;
    return true;
  }

  @Override
  public long address() {
    return slot + SLOT_HEADER;
  }

  @Override
  public int lengthBytes() {
    return UNSAFE.getInt(null, slot + SLOT_LENGTH_OFFSET);
  }

  @Override
  public void tag(PieceTag into) {
    into.set(
        UNSAFE.getLong(null, slot + SLOT_SEQUENCE_OFFSET),
        UNSAFE.getLong(null, slot + SLOT_COUNT_OFFSET),
        UNSAFE.getInt(null, slot + SLOT_META_OFFSET));
  }

  @Override
  public void release() {
    head++;
    UNSAFE.putOrderedLong(null, ring + HEAD_OFFSET, head);
  }
}
