package dev.ddp4j.collectives.transport;

/**
 * Layout of a rank's shared-memory file: a control block, then one single-producer single-consumer
 * ring per (channel, sending peer) for the pieces that peers on the same node send to this rank.
 * The receiving rank creates the file; its peers map it and write into their rings.
 *
 * <pre>
 * file /dev/shm/ddp4j-&lt;host&gt;-&lt;pid&gt;-&lt;random&gt;.r&lt;rank&gt; (owned by the receiving rank)
 * 0                                                              CONTROL_BYTES (512)
 * +------------------------------------------------------------+
 * | 0 magic u64 | 8 ranks i32 | 12 channels i32 | 16 slots i32 |  written once at creation
 * | 20 slotBytes i32 | 64 owner pid u64                        |
 * | 128 started u64: sequence numbers this rank has begun, +1   |  owner writes, peers read
 * | 192 failed u64: 0, or sequence + 1 of a collective that    |  (who never arrived; abort)
 * |      failed here (peers fail theirs at once)               |
 * | 256 probe address u64 | 264 probe value u64                |  cross-memory attach (CMA):
 * |      (a word in the owner's heap that peers read once)     |  written once at creation
 * | 320 posted u64: sequence + 1 of the collective whose       |  owner writes, peers read:
 * |      buffer follows | 328 address u64 (0: none to read)   |  {@link DirectPeers}
 * |      | 336 count u64 | 344 meta i32 | 352 reducedBase u64 |
 * | 384 reduced u64: bytes of its blocks reduced, counted over |
 * |      all collectives (reducedBase: the count at the post)  |
 * | 448 gathered u64: sequence + 1 once done reading peers     |
 * +------------------------------------------------------------+
 * | ring(channel 0, from rank 0) | ring(0, 1) | ... | ring(channels-1, ranks-1) |
 * | message ring(from rank 0) | ... | message ring(from rank ranks-1)          |
 * +------------------------------------------------------------+
 *
 * ring (ringBytes = RING_HEADER + slots * slotStride), at ringOffset(channel, fromRank); the
 * message rings (channel index {@code channels}, point-to-point only) have MESSAGE_SLOTS slots:
 * 0      head u64: pieces the receiver released     (receiver writes; own cache lines)
 * 128    tail u64: pieces the sender published      (sender writes, release store)
 * 256    slot 0 | slot 1 | ... | slot (slots-1)      (piece i lives in slot i % slots)
 *
 * slot (slotStride = SLOT_HEADER + slotBytes):
 * 0 length i32 | 4 meta i32 | 8 sequence u64 | 16 count u64 | ... | 64 payload (length bytes)
 * </pre>
 *
 * The sender fills a slot, then publishes it by advancing {@code tail}; the receiver reads {@code
 * tail} (acquire), consumes the slot in place, and advances {@code head}. A sender may fill slot
 * {@code tail % slots} only while {@code tail - head < slots}.
 */
public final class ShmRingDescriptor {

  public static final long MAGIC = 0x6464703473686d32L; // "ddp4shm2"
  public static final int CONTROL_BYTES = 512;
  public static final int MAGIC_OFFSET = 0;
  public static final int RANKS_OFFSET = 8;
  public static final int CHANNELS_OFFSET = 12;
  public static final int SLOTS_OFFSET = 16;
  public static final int SLOT_BYTES_OFFSET = 20;
  public static final int PID_OFFSET = 64;
  public static final int STARTED_OFFSET = 128;
  public static final int FAILED_OFFSET = 192;
  public static final int PROBE_ADDRESS_OFFSET = 256;
  public static final int PROBE_VALUE_OFFSET = 264;
  public static final int POSTED_OFFSET = 320;
  public static final int POSTED_ADDRESS_OFFSET = 328;
  public static final int POSTED_COUNT_OFFSET = 336;
  public static final int POSTED_META_OFFSET = 344;
  public static final int POSTED_REDUCED_BASE_OFFSET = 352;
  public static final int REDUCED_OFFSET = 384;
  public static final int GATHERED_OFFSET = 448;

  public static final int RING_HEADER = 256;
  public static final int HEAD_OFFSET = 0;
  public static final int TAIL_OFFSET = 128;

  /**
   * Slots of a message ring. A point-to-point message streams between two ranks only, so double
   * buffering keeps it moving; a full set of slots would double every cpu job's shared memory (8
   * ranks would no longer fit Docker's default 64 MiB /dev/shm) for sends most jobs never make.
   */
  public static final int MESSAGE_SLOTS = 2;

  public static final int SLOT_HEADER = 64;
  public static final int SLOT_LENGTH_OFFSET = 0;
  public static final int SLOT_META_OFFSET = 4;
  public static final int SLOT_SEQUENCE_OFFSET = 8;
  public static final int SLOT_COUNT_OFFSET = 16;

  private final int ranks;
  private final int channels;
  private final int slots;
  private final int slotBytes;

  public ShmRingDescriptor(int ranks, int channels, int slots, int slotBytes) {
    if (slots < 2 || slotBytes < 64 || slotBytes % 64 != 0) {
      throw new IllegalArgumentException(
          "shared-memory rings of "
              + slots
              + " slots of "
              + slotBytes
              + " bytes (expected: >= 2 slots of a positive multiple of 64 bytes)");
    }
    this.ranks = ranks;
    this.channels = channels;
    this.slots = slots;
    this.slotBytes = slotBytes;
  }

  public int ranks() {
    return ranks;
  }

  /** The collectives' channels; the message rings come after them, at index {@code channels}. */
  public int channels() {
    return channels;
  }

  /** Slots of the collectives' rings. */
  public int slots() {
    return slots;
  }

  /** Slots of the rings of {@code channel}: fewer for the message rings. */
  public int slots(int channel) {
    return channel == channels ? MESSAGE_SLOTS : slots;
  }

  public int slotBytes() {
    return slotBytes;
  }

  public long slotStride() {
    return SLOT_HEADER + (long) slotBytes;
  }

  public long ringBytes(int channel) {
    return RING_HEADER + slots(channel) * slotStride();
  }

  /**
   * Where the ring of {@code channel} from {@code fromRank} starts; channel {@code channels}:
   * messages.
   */
  public long ringOffset(int channel, int fromRank) {
    return CONTROL_BYTES + (long) channel * ranks * ringBytes(0) + fromRank * ringBytes(channel);
  }

  /** The whole file: the collectives' rings, then the message rings. */
  public long fileBytes() {
    return ringOffset(channels, ranks);
  }
}
