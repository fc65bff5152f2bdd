package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.*;

import dev.ddp4j.ConfigException;
import java.util.List;

/**
 * Direct reads of peers' buffers between the ranks of a group that all share one node: each rank
 * posts the address of its working buffer for a collective in its shared-memory control block
 * ({@link ShmRingDescriptor}: posted, reduced, gathered), and peers read it instead of passing
 * pieces through the rings: through their mappings of the group's shared host memory ({@link
 * SharedHostMemory}) where every buffer lies in it, else with {@link CrossMemory} (one kernel copy)
 * where every rank passed the cross-memory probe at group creation ({@link #note}, {@link
 * #decide}). Used by the progress thread only.
 */
public final class DirectPeers implements AutoCloseable {

  private final int rank;
  private final long[] control; // [rank] native address of its control block
  private final int[] pids;
  private final long minBytes;
  private final long maxBytes;
  private final boolean crossMemory; // every rank passed the probe: reads may use process_vm_readv
  private final SharedHostMemory shared;
  private final CrossMemory memory = new CrossMemory();
  private long reducedBytes; // of this rank's blocks, over all collectives: only grows

  /**
   * The {@code size} peers that map each other's control blocks through {@code shm}; reads use
   * cross-memory attach for {@code config}'s sizes if {@code crossMemory} (every rank passed the
   * probe).
   */
  private DirectPeers(
      int rank,
      int size,
      ShmLinks shm,
      TransportConfig config,
      boolean crossMemory,
      SharedHostMemory shared) {
    this.rank = rank;
    this.control = new long[size];
    this.pids = new int[size];
    for (int r = 0; r < size; r++) {
      control[r] = shm.control(r);
      pids[r] = (int) shm.pid(r);
    }
    this.minBytes = config.cmaMinBytes();
    this.maxBytes = config.cmaMaxBytes();
    this.crossMemory = crossMemory;
    this.shared = shared;
  }

  /**
   * The outcome of {@link #negotiate}: the peers (posts always work; cross-memory reads only where
   * every rank passed the probe), the cross-memory decision in words, and whether the kernel
   * refused it.
   */
  record Decision(DirectPeers peers, String reason, boolean refused) {}

  /**
   * What this rank tells its peers when it has mapped their files ({@link ShmLinks#awaitMapped}),
   * in a group whose {@code size} ranks all share this node through {@code shm}: its cross-memory
   * settings and whether it could read every peer's probe word (unless that is disabled).
   */
  static String note(int rank, int size, ShmLinks shm, TransportConfig config) {
    return config.cmaMinBytes()
        + " "
        + config.cmaMaxBytes()
        + " "
        + config.sharedMinBytes()
        + " "
        + probe(rank, size, shm, config);
  }

  /**
   * Decides from every rank's {@link #note} (index = rank) whether the group uses cross-memory
   * attach: only if every rank could ({@code refused}: some rank tried and the kernel said no).
   * Every rank decides alike.
   */
  static Decision decide(
      List<String> notes,
      int rank,
      int size,
      ShmLinks shm,
      SharedHostMemory shared,
      TransportConfig config,
      String yama) {
    String refusal = null;
    boolean tried = true;
    for (int r = 0; r < size; r++) {
      String[] said = notes.get(r).split(" ", 4);
      if (Long.parseLong(said[0]) != config.cmaMinBytes()
          || Long.parseLong(said[1]) != config.cmaMaxBytes()
          || Long.parseLong(said[2]) != config.sharedMinBytes()) {
        throw new ConfigException(
            "DDP4J_CMA_MIN_BYTES / DDP4J_CMA_MAX_BYTES / DDP4J_SHARED_MIN_BYTES are "
                + text(Long.parseLong(said[0]))
                + " / "
                + said[1]
                + " / "
                + text(Long.parseLong(said[2]))
                + " on rank "
                + r
                + " but "
                + text(config.cmaMinBytes())
                + " / "
                + config.cmaMaxBytes()
                + " / "
                + text(config.sharedMinBytes())
                + " on rank "
                + rank
                + " (set the same values on every rank)");
      }
      if (!said[3].equals("ok") && refusal == null) {
        refusal = said[3];
        tried = !said[3].startsWith("off:");
      }
    }
    String note = yama == null ? "" : " (" + yama + ")";
    DirectPeers peers = new DirectPeers(rank, size, shm, config, refusal == null, shared);
    if (refusal != null) {
      return new Decision(peers, refusal + note, tried);
    }
    return new Decision(
        peers,
        "on for all-reduces of "
            + config.cmaMinBytes()
            + " to "
            + config.cmaMaxBytes()
            + " bytes of native memory"
            + note,
        false);
  }

  private static String text(long minBytes) {
    return minBytes == TransportConfig.CMA_OFF
        ? "off"
        : minBytes == 0 ? "unset" : Long.toString(minBytes);
  }

  /** "ok", "off: why" (not tried), or why this rank cannot read a peer's memory. */
  private static String probe(int rank, int size, ShmLinks shm, TransportConfig config) {
    if (config.cmaDisabled()) {
      return "off: DDP4J_CMA_DISABLE=1 on rank " + rank;
    }
    if (config.cmaMinBytes() == TransportConfig.CMA_OFF) {
      return "off: DDP4J_CMA_MIN_BYTES=off on rank " + rank;
    }
    if (CrossMemory.unavailable() != null) {
      return "off: " + CrossMemory.unavailable() + " on rank " + rank;
    }
    long word = UNSAFE.allocateMemory(8);
    try (CrossMemory memory = new CrossMemory()) {
      for (int peer = 0; peer < size; peer++) {
        if (peer == rank) {
          continue;
        }
        long control = shm.control(peer);
        UNSAFE.putLong(word, 0);
        int errno =
            memory.read(
                (int) shm.pid(peer),
                UNSAFE.getLongVolatile(null, control + PROBE_ADDRESS_OFFSET),
                word,
                8);
        if (errno != 0 || UNSAFE.getLong(word) != UNSAFE.getLong(control + PROBE_VALUE_OFFSET)) {
          return "rank "
              + rank
              + " cannot read rank "
              + peer
              + "'s memory (pid "
              + shm.pid(peer)
              + "): "
              + (errno != 0 ? CrossMemory.explain(errno) : "it read a different value");
        }
      }
      return "ok";
    } finally {
      UNSAFE.freeMemory(word);
    }
  }

  /**
   * True if an all-reduce of {@code bytes} reads peers' buffers with cross-memory attach (where all
   * are native and not all in shared host memory).
   */
  public boolean crossMemoryCovers(long bytes) {
    return crossMemory && bytes >= minBytes && bytes <= maxBytes;
  }

  /** True if every rank passed the cross-memory probe (reads may use process_vm_readv). */
  public boolean crossMemory() {
    return crossMemory;
  }

  /** The group's shared host memory, through which peers' buffers may be read without copies. */
  public SharedHostMemory shared() {
    return shared;
  }

  /**
   * Posts this rank's working buffer for collective {@code sequence}: {@code address} 0 says it has
   * none peers could read (heap memory, which the GC moves), so the group takes the rings.
   */
  public void post(long sequence, long address, long count, int meta) {
    long c = control[rank];
    // Seqlock: the sequence drops to 0 before the fields change, so a peer that read the previous
    // post's sequence, then fields, then the sequence again sees a change when the fields it read
    // may belong to this post (see postIsStill).
    UNSAFE.putLongVolatile(null, c + POSTED_OFFSET, 0);
    UNSAFE.putLong(c + POSTED_REDUCED_BASE_OFFSET, reducedBytes);
    UNSAFE.putLong(c + POSTED_ADDRESS_OFFSET, address);
    UNSAFE.putLong(c + POSTED_COUNT_OFFSET, count);
    UNSAFE.putInt(c + POSTED_META_OFFSET, meta);
    UNSAFE.putOrderedLong(null, c + POSTED_OFFSET, sequence + 1); // release: the fields first
  }

  /** Sequence + 1 of the last collective {@code peer} posted a buffer for. */
  public long posted(int peer) {
    return UNSAFE.getLongVolatile(null, control[peer] + POSTED_OFFSET);
  }

  /**
   * True when {@code peer}'s post is still {@code posted} (as {@link #posted} returned it before
   * the fields were read): the fields read in between belong to that post.
   */
  public boolean postIsStill(int peer, long posted) {
    java.lang.invoke.VarHandle.loadLoadFence();
    return posted(peer) == posted;
  }

  /** The buffer address {@code peer} posted (read after {@link #posted} said it is there). */
  public long postedAddress(int peer) {
    return UNSAFE.getLong(control[peer] + POSTED_ADDRESS_OFFSET);
  }

  public long postedCount(int peer) {
    return UNSAFE.getLong(control[peer] + POSTED_COUNT_OFFSET);
  }

  public int postedMeta(int peer) {
    return UNSAFE.getInt(control[peer] + POSTED_META_OFFSET);
  }

  /**
   * Says that {@code bytes} more of this rank's block are reduced (peers may copy them): the
   * reduced count only grows, over all collectives, so no reset races with a slow reader.
   */
  public void reduced(long bytes) {
    reducedBytes += bytes;
    UNSAFE.putOrderedLong(null, control[rank] + REDUCED_OFFSET, reducedBytes);
  }

  /**
   * Bytes of its blocks {@code peer} reduced over all collectives: those of the current one are
   * this minus {@link #postedReducedBase}.
   */
  public long reducedBy(int peer) {
    return UNSAFE.getLongVolatile(null, control[peer] + REDUCED_OFFSET);
  }

  /** {@link #reducedBy} {@code peer} when it posted its buffer for the current collective. */
  public long postedReducedBase(int peer) {
    return UNSAFE.getLong(control[peer] + POSTED_REDUCED_BASE_OFFSET);
  }

  /** Says that this rank has read all it needs of its peers' buffers for {@code sequence}. */
  public void gathered(long sequence) {
    UNSAFE.putOrderedLong(null, control[rank] + GATHERED_OFFSET, sequence + 1);
  }

  /** Sequence + 1 of the last collective for which {@code peer} stopped reading this rank. */
  public long gatheredBy(int peer) {
    return UNSAFE.getLongVolatile(null, control[peer] + GATHERED_OFFSET);
  }

  /**
   * Copies {@code lengthBytes} at {@code remote} in {@code peer}'s memory to native {@code local}.
   *
   * @return 0, or the errno (see {@link CrossMemory#read} and {@link CrossMemory#explain})
   */
  public int read(int peer, long remote, long local, long lengthBytes) {
    return memory.read(pids[peer], remote, local, lengthBytes);
  }

  @Override
  public void close() {
    memory.close();
    shared.close();
  }
}
