package dev.ddp4j.collectives.transport;

import dev.ddp4j.ConfigException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Host memory that every rank of a one-node group maps from every other: {@link #allocate} is
 * collective, and each rank's block lies in a file of its own (in /dev/shm, or the fallback folder)
 * that all ranks map. An all-reduce over buffers in this memory then reads peers' bytes straight
 * from the mappings: no copy into ring slots and out again, and no kernel copy (see {@code
 * DirectAllReduce}). What NCCL's registered buffers and MPI's shared windows are to their users.
 *
 * <p>A rank knows, per peer, the address each block has in that peer's process and where the same
 * bytes are mapped in its own, so a peer's posted address translates to a local one. The files are
 * unlinked once every rank has mapped them (nothing is left after a crash); the mappings live until
 * {@link #close()}.
 */
public final class SharedHostMemory implements AutoCloseable {

  /** What one {@code FileChannel.map} can map. */
  public static final long MAX_BYTES = Integer.MAX_VALUE;

  private final StoreExchange exchange;
  private final String keyPrefix;
  private final int rank;
  private final int size;
  private final Path dir;
  private final Path fallbackDir;
  private final Duration timeout;
  private final List<ShmSegment> segments = new ArrayList<>(); // every mapping, closed at close
  // [rank]: its blocks, by the address they have in its own process. Replaced whole on each
  // allocation (the progress thread reads it while a user thread allocates).
  private volatile Region[][] regions;
  private int allocations;

  /** A block of {@code bytes} at {@code remote} in its owner's process, mapped here at local. */
  private record Region(long remote, long bytes, long local) {}

  SharedHostMemory(
      Store store,
      String keyPrefix,
      int rank,
      int size,
      Path dir,
      Path fallbackDir,
      Duration timeout) {
    this.exchange = new StoreExchange(store, rank, size, timeout);
    this.keyPrefix = keyPrefix;
    this.rank = rank;
    this.size = size;
    this.dir = dir;
    this.fallbackDir = fallbackDir;
    this.timeout = timeout;
    this.regions = new Region[size][0];
  }

  /**
   * Allocates {@code bytes} of zeroed host memory that every rank maps; collective: every rank
   * calls it in the same order with the same {@code bytes}.
   *
   * @return this rank's block, valid until {@link #close()}
   */
  public synchronized ByteBuffer allocate(long bytes) {
    int k = allocations++;
    if (bytes < 0 || bytes > MAX_BYTES) {
      throw new IllegalArgumentException(
          "shared host memory of "
              + bytes
              + " bytes (expected: 0 to "
              + MAX_BYTES
              + "; allocate larger tensors as several buffers)");
    }
    String name = ShmSegment.newName(rank) + ".m" + k;
    long fileBytes = Math.max(bytes, 64);
    ShmSegment own =
        ShmSegment.create(dir, fallbackDir, name, fileBytes, "this rank's shared host memory");
    List<ShmSegment> opened = new ArrayList<>();
    opened.add(own);
    try {
      List<String> all =
          gather(
              keyPrefix + "mem/" + k + "/",
              bytes + "\n" + own.address() + "\n" + own.path(),
              k,
              "allocate it");
      Region[] added = new Region[size];
      added[rank] = new Region(own.address(), bytes, own.address());
      for (int peer = 0; peer < size; peer++) {
        if (peer == rank) {
          continue;
        }
        String[] said = all.get(peer).split("\n", 3);
        long peerBytes = Long.parseLong(said[0]);
        if (peerBytes != bytes) {
          throw new ConfigException(
              "shared host memory allocation #"
                  + k
                  + ": rank "
                  + peer
                  + " asked for "
                  + peerBytes
                  + " bytes but rank "
                  + rank
                  + " for "
                  + bytes
                  + " (every rank allocates the same sizes in the same order)");
        }
        ShmSegment mapped = ShmSegment.open(Path.of(said[2]), fileBytes);
        opened.add(mapped);
        added[peer] = new Region(Long.parseLong(said[1]), bytes, mapped.address());
      }
      gather(keyPrefix + "mem-mapped/" + k + "/", "", k, "map every rank's block");
      own.unlink(); // every rank holds a mapping now: nothing left to clean up after a crash
      Region[][] next = new Region[size][];
      for (int r = 0; r < size; r++) {
        next[r] = Arrays.copyOf(regions[r], regions[r].length + 1);
        next[r][regions[r].length] = added[r];
      }
      regions = next;
      segments.addAll(opened);
      return own.buffer().limit((int) bytes).slice();
    } catch (RuntimeException e) {
      for (ShmSegment s : opened) {
        s.close();
      }
      throw e;
    }
  }

  /**
   * Every rank's value under {@code keyPrefix}, which each sets once it did {@code what} for
   * allocation #{@code k}; names the ranks that did not.
   */
  private List<String> gather(String keyPrefix, String mine, int k, String what) {
    try {
      return exchange.allGather(keyPrefix, mine, ExchangeCodec.UTF8);
    } catch (DdpTimeoutException e) {
      throw new DdpTimeoutException(
          "shared host memory allocation #"
              + k
              + " on rank "
              + rank
              + " timed out after "
              + timeout
              + ": "
              + StoreExchange.ranksText(e.missingRanks())
              + " did not "
              + what
              + " (every rank calls allocateHost with the same count, at the same place among its"
              + " collectives)",
          e.missingRanks());
    }
  }

  /**
   * True once an allocation completed here: read without a lock on every all-reduce's issue (an
   * allocation is collective, so every rank says the same before its next collective).
   */
  public boolean hasBlocks() {
    return regions[rank].length > 0;
  }

  /** How many allocations this rank has made (the same on every rank between collectives). */
  public synchronized int allocations() {
    return allocations;
  }

  /**
   * Where the {@code bytes} at {@code address} in {@code owner}'s process are mapped in this one,
   * or 0 when they do not lie within one of its blocks of shared host memory.
   */
  public long translate(int owner, long address, long bytes) {
    for (Region r : regions[owner]) {
      if (address >= r.remote && address - r.remote <= r.bytes - bytes) {
        return r.local + (address - r.remote);
      }
    }
    return 0;
  }

  @Override
  public synchronized void close() {
    for (ShmSegment s : segments) {
      s.close();
    }
    segments.clear();
    regions = new Region[size][0];
  }
}
