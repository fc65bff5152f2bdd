package dev.ddp4j.collectives.cpu;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.reduce.HostMemory;
import dev.ddp4j.collectives.transport.HostLinks;
import dev.ddp4j.collectives.transport.PieceTag;
import dev.ddp4j.collectives.transport.RecvPort;
import dev.ddp4j.collectives.transport.SendPort;
import dev.ddp4j.spi.FutureWork;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The cpu group's point-to-point messages (isend / irecv), moved by a thread of their own over each
 * peer's point-to-point connection ({@link HostLinks#pointToPointSendPort}), apart from the
 * collectives' progress thread and channels: a receive that waits for a late sender never holds up
 * a collective, nor a collective a message.
 *
 * <p>Message {@code n} from rank A to rank B meets in a rendezvous that B's receive opens, so that
 * no data ever waits in a connection for a receive nobody posted (which would block what follows it
 * there: two ranks that both send before receiving could never finish):
 *
 * <pre>
 *   B posts irecv #n      B -> A  CTS  #n (B's count, dtype)       "clear to send"
 *   A's isend #n meets it  A -> B  DATA #n pieces (A's count, dtype), then A's send is done
 *                 or else  A -> B  NACK #n (A's count, dtype)       both fail, naming both shapes
 * </pre>
 *
 * Every piece read is consumed at once (a CTS is remembered until its send is posted; DATA lands in
 * the receive that asked for it), so a connection never clogs. A send or receive that does not
 * finish within the group's timeout fails naming its peer, as does one whose peer died; its lane
 * (this rank's messages to that peer, or from it) then refuses later messages, which would no
 * longer be numbered alike on both sides. A mismatch keeps the lanes in step.
 */
final class PairMessages implements AutoCloseable {

  private static final int CTS = 1;
  private static final int DATA = 2;
  private static final int NACK = 3;
  private static final long IDLE_PARK_NS = 5_000_000L;

  private final int rank;
  private final HostLinks links;
  private final Duration timeout;
  private final int pieceBytes;
  private final Lane[] sends; // [peer]: this rank's messages to peer
  private final Lane[] receives; // [peer]: messages from peer to this rank
  private final ArrayDeque<PieceTag>[] clearToSend; // [peer]: CTS read before their send
  private final ConcurrentLinkedQueue<Message> posted = new ConcurrentLinkedQueue<>();
  private final PieceTag tag = new PieceTag();
  private final IdleWaiter waiter = new IdleWaiter();
  private final String threadName;
  private Thread thread; // started at the first message
  private volatile boolean stopping;
  private int pending; // messages posted and not finished (the thread's own count)

  @SuppressWarnings("unchecked")
  PairMessages(HostLinks links, Duration timeout, String threadName) {
    this.rank = links.rank();
    this.links = links;
    this.timeout = timeout;
    this.pieceBytes = links.pieceBytes();
    this.threadName = threadName;
    int n = links.size();
    this.sends = new Lane[n];
    this.receives = new Lane[n];
    this.clearToSend = new ArrayDeque[n];
    for (int p = 0; p < n; p++) {
      sends[p] = new Lane();
      receives[p] = new Lane();
      clearToSend[p] = new ArrayDeque<>();
    }
  }

  /** One direction of one pair: its messages in issue order and its numbering. */
  private static final class Lane {
    final ArrayDeque<Message> queue = new ArrayDeque<>(); // the thread's
    long next; // the callers' (under the group's monitor)
    DdpException broken; // the thread's: set once a message failed other than by mismatch
  }

  /** One isend or irecv in flight. */
  private static final class Message {
    final boolean send;
    final int peer;
    final long number;
    final HostMemory memory;
    final int meta;
    final String what;
    final String label; // what, its number and this rank: how every error names the message
    final long deadlineNs;
    final FutureWork work;
    boolean cleared; // send: its CTS matched; receive: its CTS went out
    int nackMeta = -1; // send: a NACK (with this rank's shape) still to go out
    long doneBytes;

    Message(
        boolean send, int peer, long number, HostMemory memory, String what, int rank, Duration t) {
      this.send = send;
      this.peer = peer;
      this.number = number;
      this.memory = memory;
      this.meta = DATA | memory.dataType().ordinal() << 4;
      this.what = what;
      this.label = what + " #" + number + " on rank " + rank;
      this.deadlineNs = System.nanoTime() + t.toNanos();
      // The thread fails a late message first, with the better message; this bound is a backstop.
      this.work = new FutureWork(number, what, t.plusSeconds(2), () -> List.of(peer));
    }
  }

  /** Posts sending {@code memory} to {@code dst} (checked: another rank). Caller synchronizes. */
  Work isend(HostMemory memory, int dst) {
    return post(true, dst, memory);
  }

  /** Posts receiving into {@code memory} from {@code src} (checked: another rank). */
  Work irecv(HostMemory memory, int src) {
    return post(false, src, memory);
  }

  private Work post(boolean send, int peer, HostMemory memory) {
    if (stopping) {
      throw new IllegalStateException(
          "process group of rank " + rank + " is closed (expected: isend/irecv before close())");
    }
    Lane lane = send ? sends[peer] : receives[peer];
    long n = lane.next++;
    String what =
        (send ? "isend(" : "irecv(")
            + shape(memory.count(), memory.dataType().ordinal())
            + (send ? " to rank " : " from rank ")
            + peer
            + ")";
    Message m = new Message(send, peer, n, memory, what, rank, timeout);
    posted.add(m);
    if (thread == null) {
      thread = new Thread(this::loop, threadName);
      thread.setDaemon(true);
      thread.start();
    }
    LockSupport.unpark(thread);
    return m.work;
  }

  private static String shape(long count, int dtype) {
    return count + " " + DataType.values()[dtype].ncclName();
  }

  private void loop() {
    while (true) {
      for (Message m; (m = posted.poll()) != null; ) {
        accept(m);
      }
      if (pending == 0) {
        if (stopping) {
          return;
        }
        LockSupport.parkNanos(this, IDLE_PARK_NS);
        continue;
      }
      waiter.start();
      while (pending > 0 && posted.isEmpty()) {
        if (pass()) {
          waiter.reset();
        } else if (waiter.idle()) {
          checkLanes(System.nanoTime());
        }
      }
    }
  }

  private void accept(Message m) {
    Lane lane = m.send ? sends[m.peer] : receives[m.peer];
    if (lane.broken != null) {
      m.work.fail(
          new DdpException(
              m.label
                  + ": this pair's messages are out of step since an earlier one failed ("
                  + lane.broken.getMessage()
                  + "); close the group and create a new one",
              lane.broken));
      return;
    }
    lane.queue.addLast(m);
    pending++;
  }

  /** One round over every peer with messages; true if anything moved. */
  private boolean pass() {
    boolean moved = false;
    for (int p = 0; p < sends.length; p++) {
      if (p != rank && (!sends[p].queue.isEmpty() || !receives[p].queue.isEmpty())) {
        moved |= openReceives(p);
        moved |= read(p);
        moved |= writeSend(p);
      }
    }
    return moved;
  }

  /** Sends a CTS for every posted receive from {@code peer} that has none out yet, in order. */
  private boolean openReceives(int peer) {
    boolean moved = false;
    SendPort port = links.pointToPointSendPort(peer);
    for (Message m : receives[peer].queue) {
      if (m.cleared) {
        continue;
      }
      tag.set(m.number, m.memory.count(), CTS | (m.meta & ~15));
      if (!port.offer(null, 0, 0, tag)) {
        break;
      }
      m.cleared = true;
      moved = true;
    }
    return moved;
  }

  /** Consumes what {@code peer} sent this rank (every piece: the connection never clogs). */
  private boolean read(int peer) {
    RecvPort port = links.pointToPointRecvPort(peer);
    boolean moved = false;
    while (port.poll()) {
      port.tag(tag);
      int kind = tag.meta & 15;
      if (kind == CTS) {
        clearToSend[peer].addLast(new PieceTag().set(tag.sequence, tag.count, tag.meta));
      } else {
        Message m = receives[peer].queue.peekFirst();
        if (m == null || !m.cleared || m.number != tag.sequence) {
          port.release(); // a late piece of a message this lane already gave up on
          moved = true;
          continue;
        }
        if (kind == NACK) {
          finish(m, mismatch(m, tag.count, tag.meta));
        } else {
          int bytes = port.lengthBytes();
          if (m.doneBytes + bytes > m.memory.sizeBytes()) {
            port.release();
            finish(m, outOfStep(m, "a piece past the end of the message"));
            moved = true;
            continue;
          }
          UNSAFE.copyMemory(
              null, port.address(), m.memory.base(), m.memory.offset() + m.doneBytes, bytes);
          m.doneBytes += bytes;
          if (m.doneBytes == m.memory.sizeBytes()) {
            finish(m, null);
          }
        }
      }
      port.release();
      moved = true;
    }
    return moved;
  }

  /** Moves the oldest send to {@code peer} on: meets its CTS, then its pieces (or a NACK). */
  private boolean writeSend(int peer) {
    Message m = sends[peer].queue.peekFirst();
    if (m == null) {
      return false;
    }
    SendPort port = links.pointToPointSendPort(peer);
    if (m.nackMeta >= 0) {
      if (!port.offer(null, 0, 0, tag.set(m.number, m.memory.count(), m.nackMeta))) {
        return false;
      }
      sends[peer].queue.removeFirst(); // failed already: it only owed the receiver its shape
      pending--;
      return true;
    }
    if (!m.cleared) {
      PieceTag cts = clearToSend[peer].pollFirst();
      if (cts == null) {
        return false;
      }
      if (cts.sequence != m.number) {
        finish(m, outOfStep(m, "a receive numbered #" + cts.sequence));
        return true;
      }
      if ((cts.meta & ~15) != (m.meta & ~15) || cts.count != m.memory.count()) {
        m.nackMeta = NACK | (m.meta & ~15); // goes out next, to fail the receive too
        m.work.fail(mismatch(m, cts.count, cts.meta));
        writeSend(peer);
        return true;
      }
      m.cleared = true;
    }
    long total = m.memory.sizeBytes();
    boolean moved = false;
    tag.set(m.number, m.memory.count(), m.meta);
    do {
      int bytes = (int) Math.min(pieceBytes, total - m.doneBytes);
      if (!port.offer(m.memory.base(), m.memory.offset() + m.doneBytes, bytes, tag)) {
        return moved;
      }
      m.doneBytes += bytes;
      moved = true;
    } while (m.doneBytes < total);
    finish(m, null);
    return true;
  }

  /** Completes (error null) or fails the head message of its lane and takes it off. */
  private void finish(Message m, DdpException error) {
    Lane lane = m.send ? sends[m.peer] : receives[m.peer];
    lane.queue.remove(m);
    pending--;
    if (error == null) {
      m.work.complete();
      return;
    }
    if (!(error instanceof CollectiveMismatchException)) {
      breakLane(lane, error);
    }
    m.work.fail(error);
  }

  private void breakLane(Lane lane, DdpException error) {
    lane.broken = error;
    for (Message left; (left = lane.queue.pollFirst()) != null; ) {
      pending--;
      left.work.fail(new DdpException(left.label + " not run: " + error, error));
    }
  }

  private CollectiveMismatchException mismatch(Message m, long theirCount, int theirMeta) {
    return new CollectiveMismatchException(
        m.label
            + ": "
            + shape(m.memory.count(), m.meta >>> 4)
            + ", but rank "
            + m.peer
            + "'s "
            + (m.send ? "irecv" : "isend")
            + " #"
            + m.number
            + " has "
            + shape(theirCount, theirMeta >>> 4)
            + " (a send and its receive must have the same count and dtype)");
  }

  private DdpException outOfStep(Message m, String what) {
    return new DdpException(
        m.label
            + ": rank "
            + m.peer
            + " sent "
            + what
            + " (do both ranks post their messages to each other in the same order?)");
  }

  /** About once a millisecond while messages wait: deadlines and the health of their peers. */
  private void checkLanes(long now) {
    for (int p = 0; p < sends.length; p++) {
      checkLane(sends[p], p, now);
      checkLane(receives[p], p, now);
    }
  }

  private void checkLane(Lane lane, int peer, long now) {
    Message m = lane.queue.peekFirst();
    if (m == null) {
      return;
    }
    String gone = links.peerGone(peer, false);
    // Its last pieces may have landed just before it left: a pass that finds none first.
    if (gone != null && !read(peer) && lane.queue.peekFirst() == m) {
      finish(m, new PeerFailureException(peer, m.label + " cannot finish: " + gone));
      return;
    }
    for (Message late : lane.queue) {
      if (now - late.deadlineNs >= 0) {
        finish(late, timedOut(late));
        return;
      }
    }
  }

  private DdpTimeoutException timedOut(Message m) {
    String state;
    if (m.doneBytes > 0 || (m.cleared && m.send)) {
      state =
          (m.send ? "rank " + m.peer + " took " : "rank " + m.peer + " sent ")
              + m.doneBytes
              + " of "
              + m.memory.sizeBytes()
              + " bytes";
    } else {
      state = "rank " + m.peer + " posted no matching " + (m.send ? "irecv" : "isend");
    }
    return new DdpTimeoutException(
        m.label
            + " timed out after "
            + timeout.toSeconds()
            + " s: "
            + state
            + " (missing rank "
            + m.peer
            + ")",
        List.of(m.peer));
  }

  /**
   * Waits up to the timeout for the messages in flight (close's contract), then stops the thread;
   * messages still unfinished fail. Before the links close.
   */
  @Override
  public void close() {
    stopping = true;
    Thread t = thread;
    if (t == null) {
      return;
    }
    LockSupport.unpark(t);
    try {
      t.join(timeout.toMillis() + 3_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      throw new DdpTimeoutException(
          "close() on rank "
              + rank
              + ": point-to-point messages still in flight after "
              + TimeUnit.MILLISECONDS.toSeconds(timeout.toMillis() + 3_000)
              + " s");
    }
  }
}
