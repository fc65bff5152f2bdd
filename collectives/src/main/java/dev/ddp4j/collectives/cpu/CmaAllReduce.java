package dev.ddp4j.collectives.cpu;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.Reductions;
import dev.ddp4j.collectives.transport.CmaPeers;
import dev.ddp4j.collectives.transport.CrossMemory;
import dev.ddp4j.collectives.transport.Links;
import dev.ddp4j.collectives.transport.PieceTag;
import dev.ddp4j.collectives.transport.RecvPort;
import java.util.List;

/**
 * All-reduce of a native working buffer by reading peers' buffers with cross-memory attach, for a
 * group whose ranks all share one node. Rank r owns block r of the buffer:
 *
 * <pre>
 * post      write (sequence, address, count, meta); wait for every peer's post
 *           (a peer that posted address 0 holds heap memory: every rank returns false, rings run)
 * reduce    for each 256 KiB chunk of block r: for each peer, read the peer's chunk into a local
 *           scratch (one kernel copy) and reduce it into block r while hot; add the chunk to the
 *           "reduced" count (it only grows, over all collectives)
 * gather    for each peer p, once p counted all of block p reduced: read it from p's buffer
 *           straight into block p of this one (one copy); then mark "gathered"
 * leave     wait until every peer marked "gathered": none reads this buffer any more
 * </pre>
 *
 * A peer never writes bytes of block p of its buffer before rank p counted them reduced (p read
 * them by then), and never returns before all marked "gathered", so every read sees the bytes it
 * should. Every wait checks, about once a millisecond, the deadline and the peer's health, as
 * {@link ProgramRunner} does. Used by the progress thread only.
 */
final class CmaAllReduce implements AutoCloseable {

  static final long CHUNK_BYTES = 256 * 1024; // a multiple of every element size; L2-resident
  private static final long CHECK_INTERVAL_NS = 1_000_000L;
  private static final int POSTED = 0;
  private static final int REDUCED = 1;
  private static final int GATHERED = 2;

  private final Links links;
  private final CmaPeers cma;
  private final int rank;
  private final int size;
  private final IdleWaiter waiter = new IdleWaiter();
  private final PieceTag received = new PieceTag();
  private final long[] peerAddress;
  private final long[] peerReducedBase; // the peer's reduced count when it posted
  private final long scratch = UNSAFE.allocateMemory(CHUNK_BYTES);
  private long collectives; // all-reduces done through cross-memory attach

  CmaAllReduce(Links links, CmaPeers cma) {
    this.links = links;
    this.cma = cma;
    this.rank = links.rank();
    this.size = links.size();
    this.peerAddress = new long[size];
    this.peerReducedBase = new long[size];
  }

  /** True if an all-reduce of {@code bytes} takes this path where every buffer is native. */
  boolean covers(long bytes) {
    return cma.covers(bytes);
  }

  /** How many all-reduces this rank ran through cross-memory attach. */
  long collectives() {
    return collectives;
  }

  /**
   * All-reduces {@code count} elements of {@code type} at ({@code base}, {@code offset}) in place,
   * reducing with {@code op} (AVG as SUM); collective over the group, {@code tag} naming it.
   *
   * @return false, having changed nothing, when some rank's buffer is heap memory (whose address
   *     the GC may change): then every rank runs the rings instead
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
    cma.post(seq, base == null ? offset : 0, tag.count, tag.meta);
    boolean all = base == null;
    for (int i = 1; i < size; i++) {
      int peer = (rank + i) % size;
      await(POSTED, peer, seq + 1, tag, deadlineNs, what);
      if (cma.postedMeta(peer) != tag.meta || cma.postedCount(peer) != tag.count) {
        received.set(seq, cma.postedCount(peer), cma.postedMeta(peer));
        throw mismatch(peer, tag);
      }
      peerAddress[peer] = cma.postedAddress(peer);
      peerReducedBase[peer] = cma.postedReducedBase(peer);
      all &= peerAddress[peer] != 0;
    }
    if (!all) {
      return false;
    }
    int e = type.sizeBytes();
    long from = count * rank / size * e;
    long to = count * (rank + 1) / size * e;
    for (long at = from; at < to; at += CHUNK_BYTES) {
      long bytes = Math.min(CHUNK_BYTES, to - at);
      for (int i = 1; i < size; i++) {
        int peer = (rank + i) % size;
        read(peer, peerAddress[peer] + at, scratch, bytes, what, seq);
        Reductions.reduce(type, op, null, offset + at, null, scratch, bytes / e);
      }
      cma.reduced(bytes);
    }
    for (int i = 1; i < size; i++) {
      gather((rank + i) % size, count, e, offset, tag, deadlineNs, what);
    }
    cma.gathered(seq);
    for (int i = 1; i < size; i++) {
      await(GATHERED, (rank + i) % size, seq + 1, tag, deadlineNs, what);
    }
    collectives++;
    return true;
  }

  /**
   * Copies {@code peer}'s reduced block into the same place here once {@code peer} counted all of
   * it reduced (rank p reads block p of this buffer before it counts those bytes, so they may be
   * overwritten then). Copying each chunk as soon as it is counted, while the peer still reduces,
   * measured slower on a 2-core VM (reads of lines the other core is writing).
   */
  private void gather(
      int peer, long count, int e, long offset, PieceTag tag, long deadlineNs, String what) {
    long blockFrom = count * peer / size * e;
    long blockBytes = count * (peer + 1) / size * e - blockFrom;
    if (blockBytes == 0) {
      return;
    }
    await(REDUCED, peer, peerReducedBase[peer] + blockBytes, tag, deadlineNs, what);
    read(peer, peerAddress[peer] + blockFrom, offset + blockFrom, blockBytes, what, tag.sequence);
  }

  private void read(int peer, long remote, long local, long bytes, String what, long seq) {
    int errno = cma.read(peer, remote, local, bytes);
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
        return cma.posted(peer);
      case REDUCED:
        return cma.reducedBy(peer);
      default:
        return cma.gatheredBy(peer);
    }
  }

  /** Waits until {@code peer}'s flag of {@code phase} reaches {@code want}. */
  private void await(int phase, int peer, long want, PieceTag tag, long deadlineNs, String what) {
    if (flag(phase, peer) >= want) {
      return;
    }
    waiter.reset();
    long nextCheckNs = System.nanoTime() + CHECK_INTERVAL_NS;
    while (flag(phase, peer) < want) { // check() returns once the flag is there
      if (phase == POSTED) {
        checkRings(peer, tag);
      }
      waiter.idle();
      long now = System.nanoTime();
      if (now - nextCheckNs >= 0) {
        nextCheckNs = now + CHECK_INTERVAL_NS;
        check(phase, peer, want, tag, deadlineNs, now, what);
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
            + " (cross-memory attach)",
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
