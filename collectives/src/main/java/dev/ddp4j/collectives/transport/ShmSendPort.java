package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.*;

/** Writes pieces into one ring of a peer's shared-memory file (see {@link ShmRingDescriptor}). */
final class ShmSendPort implements SendPort {

  private final long ring;
  private final int slots;
  private final int slotBytes;
  private final long slotStride;
  private final String route;
  private long tail;
  private long headSeen;

  ShmSendPort(long ringAddress, ShmRingDescriptor layout, int channel, String route) {
    this.ring = ringAddress;
    this.slots = layout.slots(channel);
    this.slotBytes = layout.slotBytes();
    this.slotStride = layout.slotStride();
    this.route = route;
    this.tail = UNSAFE.getLongVolatile(null, ring + TAIL_OFFSET);
    this.headSeen = UNSAFE.getLongVolatile(null, ring + HEAD_OFFSET);
  }

  @Override
  public int maxPieceBytes() {
    return slotBytes;
  }

  @Override
  public boolean offer(Object base, long offset, int lengthBytes, PieceTag tag) {
    long payload = reserve(lengthBytes);
    if (payload == 0) {
      return false;
    }
    if (lengthBytes > 0) {
      UNSAFE.copyMemory(base, offset, null, payload, lengthBytes);
    }
    publish(lengthBytes, tag);
    return true;
  }

  @Override
  public long reserve(int lengthBytes) {
    if (tail - headSeen >= slots) {
      headSeen = UNSAFE.getLongVolatile(null, ring + HEAD_OFFSET);
      if (tail - headSeen >= slots) {
        return 0;
      }
    }
    return ring + RING_HEADER + (tail % slots) * slotStride + SLOT_HEADER;
  }

  @Override
  public void publish(int lengthBytes, PieceTag tag) {
    long slot = ring + RING_HEADER + (tail % slots) * slotStride;
    UNSAFE.putInt(null, slot + SLOT_LENGTH_OFFSET, lengthBytes);
    UNSAFE.putInt(null, slot + SLOT_META_OFFSET, tag.meta);
    UNSAFE.putLong(null, slot + SLOT_SEQUENCE_OFFSET, tag.sequence);
    UNSAFE.putLong(null, slot + SLOT_COUNT_OFFSET, tag.count);
    tail++;
    UNSAFE.putOrderedLong(null, ring + TAIL_OFFSET, tail); // release: the slot is visible first
  }

  @Override
  public String route() {
    return route;
  }
}
