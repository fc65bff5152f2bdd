package dev.ddp4j.collectives.cpu;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.Reductions;
import dev.ddp4j.collectives.schedule.StepOrder;
import dev.ddp4j.collectives.transport.DirectPeers;
import dev.ddp4j.collectives.transport.Links;
import dev.ddp4j.collectives.transport.PieceTag;
import dev.ddp4j.collectives.transport.RecvPort;
import dev.ddp4j.collectives.transport.SendPort;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one rank's {@link CompiledProgram} over {@link Links}: the progress engine of the cpu group.
 * Channels are interleaved on the calling thread; inside a channel, steps run in order, except that
 * a step may overtake blocked earlier ones within a small window when it touches neither their peer
 * and direction nor their bytes (so a full send queue never stalls an independent receive). A step
 * longer than the transport's piece goes out as several pieces. A received piece that the next step
 * sends on is written into the next peer's slot in the same pass (NCCL's recvReduceSend).
 *
 * <p>While nothing moves it checks, about once a millisecond, the deadline and its peers' health,
 * and fails rather than hang: {@link DdpTimeoutException} naming the ranks that never arrived,
 * {@link PeerFailureException} for a dead or failed peer, {@link CollectiveMismatchException} when
 * a piece's header shows that its sender runs a different collective.
 */
final class ProgramRunner {

  private final Links links;
  private final DirectPeers cma; // null unless large all-reduces may read peers' buffers
  private final int rank;
  private final IdleWaiter waiter = new IdleWaiter();
  private final PieceTag received = new PieceTag();
  private final SendPort[][] send; // [peer][channel]
  private final RecvPort[][] recv;
  private int[][] piecesDone = new int[0][];
  private int[] cursor = new int[0];
  private final boolean[] stillNeeded;
  private boolean sawPeerFailure;
  // A needed peer was seen gone, but its last pieces may have landed just before it left: one more
  // pass over the rings must find nothing before that counts as a failure.
  private boolean sawPeerGone;

  ProgramRunner(Links links, DirectPeers cma) {
    this.links = links;
    this.cma = cma;
    this.rank = links.rank();
    int n = links.size();
    this.stillNeeded = new boolean[n];
    send = new SendPort[n][links.channels()];
    recv = new RecvPort[n][links.channels()];
    for (int p = 0; p < n; p++) {
      for (int c = 0; c < links.channels() && p != rank; c++) {
        send[p][c] = links.sendPort(p, c);
        recv[p][c] = links.recvPort(p, c);
      }
    }
  }

  /**
   * Runs {@code program} over the working buffer at Unsafe address ({@code base}, {@code offset})
   * of elements of {@code type}, reducing with {@code op}; every piece carries {@code tag}.
   */
  void run(
      CompiledProgram program,
      Object base,
      long offset,
      DataType type,
      ReduceOp op,
      PieceTag tag,
      long deadlineNs,
      String what) {
    int channels = program.channels();
    prepare(channels, program.maxSteps);
    int pieceBytes = links.pieceBytes() / type.sizeBytes() * type.sizeBytes();
    int elementBytes = type.sizeBytes();
    waiter.start();
    sawPeerFailure = false;
    sawPeerGone = false;
    while (true) {
      boolean moved = false;
      boolean finished = true;
      for (int c = 0; c < channels; c++) {
        byte[] kinds = program.kind[c];
        int steps = kinds.length;
        int first = cursor[c];
        for (int i = first; i < steps && i < first + StepOrder.WINDOW; i++) {
          if (done(program, c, i, pieceBytes)) {
            continue;
          }
          int allowed = allowedPieces(program, c, first, i, pieceBytes);
          if (allowed > piecesDone[c][i]) {
            moved |=
                advance(
                    program,
                    c,
                    first,
                    i,
                    allowed,
                    base,
                    offset,
                    type,
                    op,
                    tag,
                    pieceBytes,
                    elementBytes);
          }
        }
        while (first < steps && done(program, c, first, pieceBytes)) {
          first++;
        }
        cursor[c] = first;
        finished &= first == steps;
      }
      if (finished) {
        return;
      }
      if (moved) {
        sawPeerGone = false;
        waiter.reset();
        continue;
      }
      if (waiter.idle()) {
        check(program, tag, deadlineNs, System.nanoTime(), what);
      }
    }
  }

  private void prepare(int channels, int steps) {
    if (cursor.length < channels || (channels > 0 && piecesDone[0].length < steps)) {
      cursor = new int[channels];
      piecesDone = new int[channels][Math.max(steps, 16)];
    }
    for (int c = 0; c < channels; c++) {
      cursor[c] = 0;
      java.util.Arrays.fill(piecesDone[c], 0, steps, 0);
    }
  }

  private static int pieces(long length, int pieceBytes) {
    return (int) Math.max(1, (length + pieceBytes - 1) / pieceBytes);
  }

  private boolean done(CompiledProgram p, int c, int i, int pieceBytes) {
    return piecesDone[c][i] >= pieces(p.lengthBytes[c][i], pieceBytes);
  }

  /**
   * How many pieces of step {@code i} may be done given the unfinished earlier steps of its window:
   * none behind a step on the same queue (peer and direction) or one whose bytes overlap and one of
   * them writes; up to that step's progress behind one over exactly the same bytes (piece k of a
   * receive may land once piece k was sent, so a send and a receive of a whole buffer pipeline);
   * otherwise all.
   */
  private int allowedPieces(CompiledProgram p, int c, int first, int i, int pieceBytes) {
    boolean sends = p.kind[c][i] == CompiledProgram.SEND;
    int allowed = Integer.MAX_VALUE;
    for (int j = first; j < i; j++) {
      if (done(p, c, j, pieceBytes)) {
        continue;
      }
      StepOrder.Wait wait =
          StepOrder.behind(
              p.kind[c][j] == CompiledProgram.SEND,
              p.peer[c][j],
              p.offsetBytes[c][j],
              p.lengthBytes[c][j],
              sends,
              p.peer[c][i],
              p.offsetBytes[c][i],
              p.lengthBytes[c][i]);
      if (wait == StepOrder.Wait.WHOLE) {
        return 0;
      }
      if (wait == StepOrder.Wait.PIECE_BY_PIECE) {
        allowed = Math.min(allowed, piecesDone[c][j]);
      }
    }
    return allowed;
  }

  /** Moves as many pieces of step {@code i} as the transport takes now; true if any moved. */
  private boolean advance(
      CompiledProgram p,
      int c,
      int first,
      int i,
      int allowed,
      Object base,
      long offset,
      DataType type,
      ReduceOp op,
      PieceTag tag,
      int pieceBytes,
      int elementBytes) {
    long length = p.lengthBytes[c][i];
    int total = Math.min(allowed, pieces(length, pieceBytes));
    int peer = p.peer[c][i];
    byte kind = p.kind[c][i];
    boolean moved = false;
    for (int k = piecesDone[c][i]; k < total; k++) {
      long at = (long) k * pieceBytes;
      int bytes = (int) Math.min(pieceBytes, length - at);
      long address = offset + p.offsetBytes[c][i] + at;
      if (kind == CompiledProgram.SEND) {
        if (!send[peer][c].offer(base, address, bytes, tag)) {
          break;
        }
      } else {
        RecvPort port = recv[peer][c];
        if (!port.poll()) {
          break;
        }
        port.tag(received);
        if (!received.sameAs(tag)) {
          throw mismatch(peer, tag);
        }
        if (port.lengthBytes() != bytes) {
          throw new DdpException(
              "rank "
                  + rank
                  + " expected a piece of "
                  + bytes
                  + " bytes from rank "
                  + peer
                  + " but got "
                  + port.lengthBytes()
                  + " (do all ranks use the same"
                  + " DDP4J_SHM_SLOT_BYTES?)");
        }
        long forward = forwardSlot(p, c, first, i, k, bytes, pieceBytes);
        int elements = bytes / elementBytes;
        if (kind == CompiledProgram.RECV_COPY) {
          UNSAFE.copyMemory(null, port.address(), base, address, bytes);
          if (forward != 0) {
            UNSAFE.copyMemory(null, port.address(), null, forward, bytes);
          }
        } else if (forward != 0) {
          Reductions.reduceAndCopy(type, op, base, address, port.address(), forward, elements);
        } else {
          Reductions.reduce(type, op, base, address, null, port.address(), elements);
        }
        if (forward != 0) { // the next step's piece k went out with this one
          send[p.peer[c][i + 1]][c].publish(bytes, tag);
          piecesDone[c][i + 1] = k + 1;
        }
        port.release();
      }
      piecesDone[c][i] = k + 1;
      moved = true;
    }
    return moved;
  }

  /**
   * When step {@code i + 1} sends exactly the bytes that piece {@code k} of receive step {@code i}
   * writes (a ring forwards what it just reduced or received), and may send that piece now: the
   * native address of a reserved slot of the next peer, so the piece is reduced or copied straight
   * into it while hot instead of re-read from the working buffer later (see {@link
   * SendPort#reserve}); else 0.
   */
  private long forwardSlot(
      CompiledProgram p, int c, int first, int i, int k, int bytes, int pieceBytes) {
    int j = i + 1;
    if (j >= p.kind[c].length
        || p.kind[c][j] != CompiledProgram.SEND
        || p.offsetBytes[c][j] != p.offsetBytes[c][i]
        || p.lengthBytes[c][j] != p.lengthBytes[c][i]
        || piecesDone[c][j] != k) {
      return 0;
    }
    piecesDone[c][i] = k + 1; // as if this piece had landed: may the send take it after?
    int allowed = allowedPieces(p, c, first, j, pieceBytes);
    piecesDone[c][i] = k;
    return allowed > k ? send[p.peer[c][j]][c].reserve(bytes) : 0;
  }

  private CollectiveMismatchException mismatch(int peer, PieceTag ours) {
    return CollectiveMeta.mismatch(rank, ours, peer, received);
  }

  private void check(CompiledProgram p, PieceTag tag, long deadlineNs, long now, String what) {
    String prefix = what + " #" + tag.sequence + " on rank " + rank;
    int failedPeer = -1;
    checkPosts(tag);
    markPeersStillNeeded(p);
    for (int peer = 0; peer < links.size(); peer++) {
      if (peer == rank) {
        continue;
      }
      // A peer that finished its part and left is no failure; one this rank still needs is.
      String gone = stillNeeded[peer] ? links.peerGone(peer, false) : null;
      if (gone != null) {
        if (!sawPeerGone) {
          sawPeerGone = true;
          return;
        }
        throw new PeerFailureException(peer, prefix + " cannot finish: " + gone);
      }
      if (failedPeer < 0 && links.peerFailed(peer) != null) {
        failedPeer = peer;
      }
    }
    boolean late = now - deadlineNs >= 0;
    if (!late && failedPeer < 0) {
      return;
    }
    if (!late && !sawPeerFailure) {
      // Give the pieces already here one more pass: a mismatch found in them names both sides,
      // which says more than "rank 1 gave up".
      sawPeerFailure = true;
      return;
    }
    List<Integer> missing = links.notStarted(tag.sequence);
    for (int peer : missing) { // a rank that never arrived may be a dead one: say so
      String gone = links.peerGone(peer, true);
      if (gone != null) {
        throw new PeerFailureException(peer, prefix + " cannot finish: " + gone);
      }
    }
    String cause = failedPeer < 0 ? "" : "; " + links.peerFailed(failedPeer);
    if (!missing.isEmpty()) {
      throw new DdpTimeoutException(
          prefix
              + (late ? " timed out" : " cannot finish")
              + ": ranks that never arrived: "
              + missing
              + cause,
          missing);
    }
    if (failedPeer >= 0) {
      throw new PeerFailureException(failedPeer, prefix + " cannot finish" + cause);
    }
    List<Integer> waitingOn = waitingOn(p);
    throw new DdpTimeoutException(
        prefix
            + " timed out; every peer this rank can see began it; rank "
            + rank
            + " was waiting on ranks "
            + waitingOn,
        waitingOn);
  }

  /**
   * A peer that called an all-reduce large enough for cross-memory attach posted its buffer and
   * waits for this rank's post instead of sending pieces: its post names its side of a mismatch.
   */
  private void checkPosts(PieceTag tag) {
    if (cma == null) {
      return;
    }
    for (int peer = 0; peer < links.size(); peer++) {
      long posted = peer == rank ? 0 : cma.posted(peer);
      if (posted != tag.sequence + 1) {
        continue;
      }
      long count = cma.postedCount(peer);
      int meta = cma.postedMeta(peer);
      // A peer one collective ahead may be rewriting its post: then these fields are not #seq's.
      if (cma.postIsStill(peer, posted) && (meta != tag.meta || count != tag.count)) {
        received.set(tag.sequence, count, meta);
        throw mismatch(peer, tag);
      }
    }
  }

  /** Sets {@link #stillNeeded} for the peers of every unfinished step. */
  private void markPeersStillNeeded(CompiledProgram p) {
    java.util.Arrays.fill(stillNeeded, false);
    for (int c = 0; c < p.channels(); c++) {
      for (int i = cursor[c]; i < p.kind[c].length; i++) {
        stillNeeded[p.peer[c][i]] = true;
      }
    }
  }

  private List<Integer> waitingOn(CompiledProgram p) {
    List<Integer> peers = new ArrayList<>();
    for (int c = 0; c < p.channels(); c++) {
      if (cursor[c] < p.kind[c].length && !peers.contains(p.peer[c][cursor[c]])) {
        peers.add(p.peer[c][cursor[c]]);
      }
    }
    return peers;
  }
}
