package dev.ddp4j.collectives.cpu;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.Reductions;
import dev.ddp4j.collectives.transport.CrossMemory;
import dev.ddp4j.collectives.transport.DirectPeers;
import dev.ddp4j.collectives.transport.Links;
import dev.ddp4j.collectives.transport.PieceTag;
import dev.ddp4j.collectives.transport.RecvPort;
import dev.ddp4j.collectives.transport.SharedHostMemory;
import java.util.List;

/**
 * All-reduce of a native working buffer by reading peers' buffers directly, for a group whose ranks
 * all share one node: from this rank's mappings of them where every rank's buffer lies in the
 * group's shared host memory ({@code ProcessGroup.allocateHost}), else with cross-memory attach
 * (one kernel copy per read) where the size is in its window. Rank r owns block r of the buffer:
 *
 * <pre>
 * post      write (sequence, address, count, meta); wait for every peer's post
 *           (a peer that posted address 0 holds heap memory: every rank returns false, rings run;
 *           so does every rank when not all buffers are shared and cross-memory attach is off)
 * reduce    for each 256 KiB chunk of block r, for each peer: reduce the peer's chunk into block
 *           r, straight from the mapping, or read into a local scratch first (cross-memory);
 *           add the chunk to the "reduced" count (it only grows, over all collectives)
 * gather    for each peer p, once p counted all of block p reduced: copy it from p's buffer
 *           into block p of this one (one copy); then mark "gathered"
 * leave     wait until every peer marked "gathered": none reads this buffer any more
 * </pre>
 *
 * A peer never writes bytes of block p of its buffer before rank p counted them reduced (p read
 * them by then), and never returns before all marked "gathered", so every read sees the bytes it
 * should. Each block is reduced by one rank only, so every rank ends with the same bits. Every wait
 * checks, about once a millisecond, the deadline and the peer's health, as {@link ProgramRunner}
 * does. Used by the progress thread only.
 */
final class DirectAllReduce implements AutoCloseable {

  static final long CHUNK_BYTES = 256 * 1024; // a multiple of every element size; L2-resident
  private static final int POSTED = 0;
  private static final int REDUCED = 1;
  private static final int GATHERED = 2;

  private final Links links;
  private final DirectPeers peers;
  private final long sharedMinBytes;
  private final int rank;
  private final int size;
  private final IdleWaiter waiter = new IdleWaiter();
  private final PieceTag received = new PieceTag();
  private final long[] peerAddress;
  private final long[] peerMapped; // where the peer's buffer is mapped here, or 0
  private final long[] peerReducedBase; // the peer's reduced count when it posted
  private final long scratch = UNSAFE.allocateMemory(CHUNK_BYTES);
  private long crossMemoryRuns; // all-reduces done through cross-memory attach
  private long sharedRuns; // all-reduces done through the mappings of shared host memory

  DirectAllReduce(Links links, DirectPeers peers, long sharedMinBytes) {
    this.links = links;
    this.peers = peers;
    this.sharedMinBytes = sharedMinBytes;
    this.rank = links.rank();
    this.size = links.size();
    this.peerAddress = new long[size];
    this.peerMapped = new long[size];
    this.peerReducedBase = new long[size];
  }

  /**
   * True if an all-reduce of {@code bytes} tries this path (posts its buffer) where every buffer is
   * native. {@code sharedIssued}: the group had allocated shared host memory when the collective
   * was issued (the same on every rank, as allocations are collective).
   */
  boolean covers(long bytes, boolean sharedIssued) {
    return peers.crossMemoryCovers(bytes) || sharedIssued && bytes >= sharedMinBytes;
  }

  /** How many all-reduces this rank ran through cross-memory attach. */
  long crossMemoryRuns() {
    return crossMemoryRuns;
  }

  /** How many all-reduces this rank ran through the mappings of shared host memory. */
  long sharedRuns() {
    return sharedRuns;
  }

  /**
   * All-reduces {@code count} elements of {@code type} at ({@code base}, {@code offset}) in place,
   * reducing with {@code op} (AVG as SUM); collective over the group, {@code tag} naming it.
   *
   * @return false, having changed nothing, when some rank's buffer is heap memory (whose address
   *     the GC may change), or not every buffer is shared host memory and cross-memory attach is
   *     off or does not cover the size: then every rank runs the rings instead
   */
  boolean run(
      Object base,
      long offset,
      long count,
      DataType type,
      ReduceOp op,
      PieceTag tag,
      long deadlineNs,
      String what) {
    long seq = tag.sequence;
    int e = type.sizeBytes();
    long bytes = count * e;
    peers.post(seq, base == null ? offset : 0, tag.count, tag.meta);
    boolean all = base == null;
    SharedHostMemory shared = peers.shared();
    boolean mapped = all && shared.translate(rank, offset, bytes) != 0;
    for (int i = 1; i < size; i++) {
      int peer = (rank + i) % size;
      await(POSTED, peer, seq + 1, tag, deadlineNs, what);
      if (peers.postedMeta(peer) != tag.meta || peers.postedCount(peer) != tag.count) {
        received.set(seq, peers.postedCount(peer), peers.postedMeta(peer));
        throw mismatch(peer, tag);
      }
      peerAddress[peer] = peers.postedAddress(peer);
      peerReducedBase[peer] = peers.postedReducedBase(peer);
      all &= peerAddress[peer] != 0;
      peerMapped[peer] = all ? shared.translate(peer, peerAddress[peer], bytes) : 0;
      mapped &= peerMapped[peer] != 0;
    }
    if (!all || !mapped && !peers.crossMemoryCovers(bytes)) {
      return false;
    }
    long from = count * rank / size * e;
    long to = count * (rank + 1) / size * e;
    for (long at = from; at < to; at += CHUNK_BYTES) {
      long chunk = Math.min(CHUNK_BYTES, to - at);
      for (int i = 1; i < size; i++) {
        int peer = (rank + i) % size;
        long source = scratch;
        if (mapped) {
          source = peerMapped[peer] + at;
        } else {
          read(peer, peerAddress[peer] + at, scratch, chunk, what, seq);
        }
        Reductions.reduce(type, op, null, offset + at, null, source, chunk / e);
      }
      peers.reduced(chunk);
    }
    for (int i = 1; i < size; i++) {
      gather((rank + i) % size, count, e, offset, mapped, tag, deadlineNs, what);
    }
    peers.gathered(seq);
    for (int i = 1; i < size; i++) {
      await(GATHERED, (rank + i) % size, seq + 1, tag, deadlineNs, what);
    }
    if (mapped) {
      sharedRuns++;
    } else {
      crossMemoryRuns++;
    }
    return true;
  }

  /**
   * Copies {@code peer}'s reduced block into the same place here once {@code peer} counted all of
   * it reduced (rank p reads block p of this buffer before it counts those bytes, so they may be
   * overwritten then). Copying each chunk as soon as it is counted, while the peer still reduces,
   * measured slower on a 2-core VM (reads of lines the other core is writing).
   */
  private void gather(
      int peer,
      long count,
      int e,
      long offset,
      boolean mapped,
      PieceTag tag,
      long deadlineNs,
      String what) {
    long blockFrom = count * peer / size * e;
    long blockBytes = count * (peer + 1) / size * e - blockFrom;
    if (blockBytes == 0) {
      return;
    }
    await(REDUCED, peer, peerReducedBase[peer] + blockBytes, tag, deadlineNs, what);
    if (mapped) {
      UNSAFE.copyMemory(null, peerMapped[peer] + blockFrom, null, offset + blockFrom, blockBytes);
    } else {
      read(peer, peerAddress[peer] + blockFrom, offset + blockFrom, blockBytes, what, tag.sequence);
    }
  }

  private void read(int peer, long remote, long local, long bytes, String what, long seq) {
    int errno = peers.read(peer, remote, local, bytes);
    if (errno == 0) {
      return;
    }
    String prefix = what + " #" + seq + " on rank " + rank;
    String gone = links.peerGone(peer, true);
    if (gone != null) {
      throw new PeerFailureException(peer, prefix + " cannot finish: " + gone);
    }
    throw new DdpException(
        prefix
            + " could not read rank "
            + peer
            + "'s buffer with process_vm_readv: "
            + CrossMemory.explain(errno));
  }

  private long flag(int phase, int peer) {
    switch (phase) {
      case POSTED:
        return peers.posted(peer);
      case REDUCED:
        return peers.reducedBy(peer);
      default:
        return peers.gatheredBy(peer);
    }
  }

  /** Waits until {@code peer}'s flag of {@code phase} reaches {@code want}. */
  private void await(int phase, int peer, long want, PieceTag tag, long deadlineNs, String what) {
    if (flag(phase, peer) >= want) {
      return;
    }
    waiter.start();
    while (flag(phase, peer) < want) { // check() returns once the flag is there
      if (phase == POSTED) {
        checkRings(peer, tag);
      }
      if (waiter.idle()) {
        check(phase, peer, want, tag, deadlineNs, System.nanoTime(), what);
      }
    }
  }

  /**
   * A peer that runs another collective over the rings (a different count, dtype or op) sends
   * pieces instead of posting: their tag names both sides.
   */
  private void checkRings(int peer, PieceTag tag) {
    for (int c = 0; c < links.channels(); c++) {
      RecvPort port = links.recvPort(peer, c);
      if (port.poll()) {
        port.tag(received);
        if (!received.sameAs(tag)) {
          throw mismatch(peer, tag);
        }
      }
    }
  }

  private void check(
      int phase, int peer, long want, PieceTag tag, long deadlineNs, long now, String what) {
    String prefix = what + " #" + tag.sequence + " on rank " + rank;
    String failed = links.peerFailed(peer);
    String gone = failed == null ? links.peerGone(peer, false) : null;
    if (failed != null || gone != null) {
      // It may have marked (or posted a mismatching buffer, or sent a mismatching piece) just
      // before it gave up or left: what it did says more. Its flag was written before it failed.
      if (flag(phase, peer) >= want) {
        return;
      }
      if (phase == POSTED) {
        checkRings(peer, tag);
      }
      throw new PeerFailureException(
          peer, prefix + " cannot finish" + (failed != null ? "; " + failed : ": " + gone));
    }
    if (now - deadlineNs < 0) {
      return;
    }
    List<Integer> missing = links.notStarted(tag.sequence);
    if (!missing.isEmpty()) {
      throw new DdpTimeoutException(
          prefix + " timed out: ranks that never arrived: " + missing, missing);
    }
    String step =
        phase == POSTED
            ? "post its buffer"
            : phase == REDUCED ? "reduce its block" : "finish reading this rank's buffer";
    throw new DdpTimeoutException(
        prefix
            + " timed out; every peer began it; rank "
            + rank
            + " was waiting on rank "
            + peer
            + " to "
            + step
            + " (direct reads of peers' buffers)",
        List.of(peer));
  }

  private CollectiveMismatchException mismatch(int peer, PieceTag ours) {
    return CollectiveMeta.mismatch(rank, ours, peer, received);
  }

  @Override
  public void close() {
    UNSAFE.freeMemory(scratch);
  }
}
