package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.EventPool;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * Gather, scatter and all-to-all of a cuda group whose pairs all have peer access, over the
 * mailbox's collectives channel ({@link PeerMailbox}): the copy engines move every block, with no
 * kernel and no staging. Each call forks from the caller's stream onto a stream per peer and
 * direction, so that the blocks to and from different peers move at once and a slow pair holds no
 * other up, and joins back, so that work queued after the call on the caller's stream sees the
 * result (the group's Work is recorded there). The rank's own block is a local copy on the caller's
 * stream. Not thread safe: its group issues one collective at a time.
 */
final class MailboxCollectives implements AutoCloseable {

  private final int rank;
  private final int size;
  private final PeerMailbox mailbox;
  private final EventPool events;
  private final CUstream[] sendTo;
  private final CUstream[] receiveFrom;

  MailboxCollectives(int rank, int size, PeerMailbox mailbox, EventPool events) {
    this.rank = rank;
    this.size = size;
    this.mailbox = mailbox;
    this.events = events;
    this.sendTo = new CUstream[size];
    this.receiveFrom = new CUstream[size];
    for (int p = 0; p < size; p++) {
      if (p != rank) {
        sendTo[p] = stream();
        receiveFrom[p] = stream();
      }
    }
  }

  private static CUstream stream() {
    CUstream s = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return s;
  }

  PeerMailbox mailbox() {
    return mailbox;
  }

  /** Block i of root's input to rank i ({@code blockBytes} each); {@code in} read on root only. */
  void scatter(long in, long out, long blockBytes, int root, CUstream stream) {
    CUevent fork = fork(stream);
    if (rank == root) {
      for (int p = 0; p < size; p++) {
        if (p != rank) {
          start(sendTo[p], fork);
          mailbox.push(PeerMailbox.COLLECTIVES, p, in + p * blockBytes, blockBytes, sendTo[p]);
          join(sendTo[p], stream);
        }
      }
      localCopy(out, in + rank * blockBytes, blockBytes, stream);
    } else {
      start(receiveFrom[root], fork);
      mailbox.pull(PeerMailbox.COLLECTIVES, root, out, blockBytes, receiveFrom[root]);
      join(receiveFrom[root], stream);
    }
    events.release(fork);
  }

  /** Every rank's {@code blockBytes} at {@code in} into root's {@code out}, in rank order. */
  void gather(long in, long out, long blockBytes, int root, CUstream stream) {
    CUevent fork = fork(stream);
    if (rank == root) {
      for (int p = 0; p < size; p++) {
        if (p != rank) {
          start(receiveFrom[p], fork);
          mailbox.pull(
              PeerMailbox.COLLECTIVES, p, out + p * blockBytes, blockBytes, receiveFrom[p]);
          join(receiveFrom[p], stream);
        }
      }
      localCopy(out + rank * blockBytes, in, blockBytes, stream);
    } else {
      start(sendTo[root], fork);
      mailbox.push(PeerMailbox.COLLECTIVES, root, in, blockBytes, sendTo[root]);
      join(sendTo[root], stream);
    }
    events.release(fork);
  }

  /** Block j of {@code in} to rank j; block k of {@code out} from rank k. */
  void allToAll(long in, long out, long blockBytes, CUstream stream) {
    CUevent fork = fork(stream);
    for (int step = 1; step < size; step++) {
      // Rank r sends to r + step while receiving from r - step, so each step pairs every rank up.
      int to = (rank + step) % size;
      int from = (rank - step + size) % size;
      start(sendTo[to], fork);
      mailbox.push(PeerMailbox.COLLECTIVES, to, in + to * blockBytes, blockBytes, sendTo[to]);
      start(receiveFrom[from], fork);
      mailbox.pull(
          PeerMailbox.COLLECTIVES, from, out + from * blockBytes, blockBytes, receiveFrom[from]);
    }
    for (int p = 0; p < size; p++) {
      if (p != rank) {
        join(sendTo[p], stream);
        join(receiveFrom[p], stream);
      }
    }
    localCopy(out + rank * blockBytes, in + rank * blockBytes, blockBytes, stream);
    events.release(fork);
  }

  private CUevent fork(CUstream stream) {
    CUevent e = events.take();
    Cu.check(JCudaDriver.cuEventRecord(e, stream), "cuEventRecord");
    return e;
  }

  private static void start(CUstream side, CUevent fork) {
    Cu.check(JCudaDriver.cuStreamWaitEvent(side, fork, 0), "cuStreamWaitEvent");
  }

  private void join(CUstream side, CUstream stream) {
    CUevent e = events.take();
    Cu.check(JCudaDriver.cuEventRecord(e, side), "cuEventRecord");
    Cu.check(JCudaDriver.cuStreamWaitEvent(stream, e, 0), "cuStreamWaitEvent");
    events.release(e);
  }

  private static void localCopy(long dst, long src, long bytes, CUstream stream) {
    if (bytes > 0 && dst != src) {
      Cu.check(
          JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(dst), Cu.ptr(src), bytes, stream),
          "cuMemcpyDtoDAsync of this rank's own block");
    }
  }

  /** Destroys the side streams and frees the mailbox; needs the context current. */
  @Override
  public void close() {
    for (int p = 0; p < size; p++) {
      if (p != rank) {
        JCudaDriver.cuStreamSynchronize(sendTo[p]);
        JCudaDriver.cuStreamSynchronize(receiveFrom[p]);
        JCudaDriver.cuStreamDestroy(sendTo[p]);
        JCudaDriver.cuStreamDestroy(receiveFrom[p]);
      }
    }
    mailbox.close();
  }
}
