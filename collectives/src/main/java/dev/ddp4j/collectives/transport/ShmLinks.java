package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;
import static dev.ddp4j.collectives.transport.ShmRingDescriptor.*;

import dev.ddp4j.DdpException;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Shared-memory connections among the ranks of one node: each rank creates one file holding the
 * rings its node peers write into ({@link ShmRingDescriptor}), publishes its path in the store,
 * maps every peer's file, and unlinks its own once all have mapped it ({@link #awaitMapped}).
 */
final class ShmLinks implements AutoCloseable {

  private final int[] nodeRanks; // global ranks on this node, ascending
  private final int localIndex;
  private final ShmRingDescriptor layout;
  private final ShmSegment own;
  private final ShmSegment[] peers; // by local index; own file at localIndex
  private final long[] pids;
  private final long probeWord; // native, read by peers' cross-memory attach probe

  private ShmLinks(
      int[] nodeRanks,
      int localIndex,
      ShmRingDescriptor layout,
      ShmSegment own,
      ShmSegment[] peers,
      long probeWord) {
    this.probeWord = probeWord;
    this.nodeRanks = nodeRanks;
    this.localIndex = localIndex;
    this.layout = layout;
    this.own = own;
    this.peers = peers;
    this.pids = new long[nodeRanks.length];
    for (int i = 0; i < nodeRanks.length; i++) {
      pids[i] = UNSAFE.getLongVolatile(null, peers[i].address() + PID_OFFSET);
    }
  }

  /**
   * Maps the files of the ranks {@code nodeRanks} (this rank among them) in {@code dir}; collective
   * over those ranks, as is the {@link #awaitMapped} that must follow.
   */
  static ShmLinks connect(
      StoreExchange exchange,
      String keyPrefix,
      int[] nodeRanks,
      ShmRingDescriptor layout,
      Path dir,
      Path fallbackDir) {
    int rank = exchange.rank();
    int local = indexOf(nodeRanks, rank);
    String name = ShmSegment.newName(rank);
    ShmSegment own = ShmSegment.create(dir, fallbackDir, name, layout.fileBytes());
    ShmSegment[] segments = new ShmSegment[nodeRanks.length];
    long probeWord = UNSAFE.allocateMemory(8);
    try {
      long base = own.address();
      UNSAFE.putInt(null, base + RANKS_OFFSET, layout.ranks());
      UNSAFE.putInt(null, base + CHANNELS_OFFSET, layout.channels());
      UNSAFE.putInt(null, base + SLOTS_OFFSET, layout.slots());
      UNSAFE.putInt(null, base + SLOT_BYTES_OFFSET, layout.slotBytes());
      UNSAFE.putLong(null, base + PID_OFFSET, ProcessHandle.current().pid());
      long probeValue = ThreadLocalRandom.current().nextLong() | 1;
      UNSAFE.putLong(probeWord, probeValue);
      UNSAFE.putLong(null, base + PROBE_ADDRESS_OFFSET, probeWord);
      UNSAFE.putLong(null, base + PROBE_VALUE_OFFSET, probeValue);
      UNSAFE.putLongVolatile(null, base + MAGIC_OFFSET, MAGIC);
      List<String> paths =
          exchange.gather(keyPrefix + "shm/", own.path().toString(), nodeRanks, ExchangeCodec.UTF8);
      segments[local] = own;
      for (int i = 0; i < nodeRanks.length; i++) {
        if (i != local) {
          segments[i] = ShmSegment.open(Path.of(paths.get(i)), layout.fileBytes());
          checkHeader(segments[i], layout, nodeRanks[i]);
        }
      }
      return new ShmLinks(nodeRanks, local, layout, own, segments, probeWord);
    } catch (RuntimeException e) {
      UNSAFE.freeMemory(probeWord);
      for (ShmSegment s : segments) {
        if (s != null && s != own) {
          s.close();
        }
      }
      own.close();
      throw e;
    }
  }

  /**
   * Says this rank mapped every node peer's file, with {@code note} (what the group decides next,
   * in the same round), waits until every peer did, and unlinks this rank's file; returns every
   * node rank's note in the order of {@code nodeRanks}. Collective over those ranks.
   */
  List<String> awaitMapped(StoreExchange exchange, String keyPrefix, String note) {
    List<String> notes =
        exchange.gather(keyPrefix + "shm-mapped/", note, nodeRanks, ExchangeCodec.UTF8);
    own.unlink(); // every peer holds a mapping now: nothing left to clean up after a crash
    return notes;
  }

  private static void checkHeader(ShmSegment peer, ShmRingDescriptor layout, int peerRank) {
    long a = peer.address();
    if (UNSAFE.getLongVolatile(null, a + MAGIC_OFFSET) != MAGIC
        || UNSAFE.getInt(null, a + SLOTS_OFFSET) != layout.slots()
        || UNSAFE.getInt(null, a + SLOT_BYTES_OFFSET) != layout.slotBytes()
        || UNSAFE.getInt(null, a + CHANNELS_OFFSET) != layout.channels()) {
      throw new DdpException(
          "rank "
              + peerRank
              + "'s shared memory file "
              + peer.path()
              + " has a different layout (slots "
              + UNSAFE.getInt(null, a + SLOTS_OFFSET)
              + " x "
              + UNSAFE.getInt(null, a + SLOT_BYTES_OFFSET)
              + " bytes, "
              + UNSAFE.getInt(null, a + CHANNELS_OFFSET)
              + " channels; this rank: "
              + layout.slots()
              + " x "
              + layout.slotBytes()
              + ", "
              + layout.channels()
              + "); set the same DDP4J_SHM_* and DDP4J_NCHANNELS on every rank");
    }
  }

  static int indexOf(int[] ranks, int rank) {
    for (int i = 0; i < ranks.length; i++) {
      if (ranks[i] == rank) {
        return i;
      }
    }
    return -1;
  }

  /** True if {@code rank} is on this node. */
  boolean has(int rank) {
    return indexOf(nodeRanks, rank) >= 0;
  }

  SendPort sendPort(int peer, int channel) {
    int p = indexOf(nodeRanks, peer);
    long ring = peers[p].address() + layout.ringOffset(channel, localIndex);
    return new ShmSendPort(ring, layout, channel, "SHM over NODE");
  }

  RecvPort recvPort(int peer, int channel) {
    int p = indexOf(nodeRanks, peer);
    return new ShmRecvPort(own.address() + layout.ringOffset(channel, p), layout, channel);
  }

  void started(long sequence) {
    UNSAFE.putOrderedLong(null, own.address() + STARTED_OFFSET, sequence + 1);
  }

  void failed(long sequence) {
    UNSAFE.putLongVolatile(null, own.address() + FAILED_OFFSET, sequence + 1);
  }

  /** Sequence + 1 of the last collective {@code peer} began. */
  long startedBy(int peer) {
    return UNSAFE.getLongVolatile(null, peers[indexOf(nodeRanks, peer)].address() + STARTED_OFFSET);
  }

  /** Zero, or sequence + 1 of a collective that failed on {@code peer}. */
  long failedOn(int peer) {
    return UNSAFE.getLongVolatile(null, peers[indexOf(nodeRanks, peer)].address() + FAILED_OFFSET);
  }

  /** The native address of {@code rank}'s control block (see {@link ShmRingDescriptor}). */
  long control(int rank) {
    return peers[indexOf(nodeRanks, rank)].address();
  }

  /** The pid {@code peer} wrote into its file. */
  long pid(int peer) {
    return pids[indexOf(nodeRanks, peer)];
  }

  @Override
  public void close() {
    for (ShmSegment s : peers) {
      if (s != null) {
        s.close();
      }
    }
    UNSAFE.freeMemory(probeWord);
  }
}
