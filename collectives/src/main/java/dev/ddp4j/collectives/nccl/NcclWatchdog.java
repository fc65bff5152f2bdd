package dev.ddp4j.collectives.nccl;

import dev.ddp4j.collectives.gpu.CudaWork;
import dev.ddp4j.collectives.log.DebugLog;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread per nccl group that keeps every rank from hanging, as PyTorch's NCCL watchdog does: it
 * retires finished collectives (their events go back to the pool), aborts the communicator when the
 * oldest unfinished one is older than the group's timeout, when NCCL reports an asynchronous error
 * (a peer died: ncclRemoteError / ncclSystemError), or when another rank aborted; and it publishes
 * this rank's last called collective for the others' timeout messages.
 */
final class NcclWatchdog implements Runnable {

  /** What the watchdog asks of its group. */
  interface Group {
    /** The sequence number of the last collective called, -1 before the first. */
    long issued();

    /** Aborts because the collective {@code late} timed out. */
    void abortLate(CudaWork late);

    /** Aborts because NCCL reported {@code result} asynchronously. */
    void abortAsync(int result);

    /** Aborts because another rank did ({@code "R: reason"}). */
    void abortForPeer(String record);
  }

  private static final long PUBLISH_EVERY_NS = 200_000_000L;
  private static final long PEER_CHECK_EVERY_NS = 1_000_000_000L;

  private record Pending(CudaWork work, long issuedNs) {}

  private final Group group;
  private final NcclComm comm;
  private final NcclPeers peers;
  private final long timeoutNs;
  private final DebugLog log;
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private volatile boolean stopped;
  private boolean storeWarned;

  NcclWatchdog(
      Group group, NcclComm comm, NcclPeers peers, Duration timeout, DebugLog log, int rank) {
    this.group = group;
    this.comm = comm;
    this.peers = peers;
    this.timeoutNs = timeout.toNanos();
    this.log = log;
    this.thread = new Thread(this, "ddp4j-nccl-watchdog-rank" + rank);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Watches {@code work}, issued now. */
  void add(CudaWork work) {
    pending.add(new Pending(work, System.nanoTime()));
  }

  /** The works not yet seen complete, oldest first. */
  Iterable<CudaWork> unfinished() {
    return pending.stream().map(Pending::work).toList();
  }

  void stop() {
    stopped = true;
    LockSupport.unpark(thread);
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void run() {
    long published = Long.MIN_VALUE;
    long nextPublishNs = System.nanoTime();
    long nextPeerCheckNs = nextPublishNs + PEER_CHECK_EVERY_NS;
    while (!stopped) {
      Pending head = pending.peek();
      while (head != null && head.work().poll()) {
        pending.poll();
        head = pending.peek();
      }
      int rc = comm.asyncError();
      if (rc != NcclTypes.SUCCESS && rc != NcclTypes.IN_PROGRESS) {
        group.abortAsync(rc);
      }
      long now = System.nanoTime();
      if (head != null && now - head.issuedNs() - timeoutNs > 0) {
        group.abortLate(head.work());
      }
      try {
        if (now - nextPublishNs >= 0) {
          long issued = group.issued();
          if (issued != published) {
            peers.publishIssued(issued);
            published = issued;
          }
          nextPublishNs = now + PUBLISH_EVERY_NS;
        }
        if (head != null && now - nextPeerCheckNs >= 0) {
          peers.peerAbort().ifPresent(group::abortForPeer);
          nextPeerCheckNs = now + PEER_CHECK_EVERY_NS;
        }
      } catch (RuntimeException e) {
        // The store may be gone while NCCL still works: keep watching the collectives.
        if (!storeWarned) {
          storeWarned = true;
          log.log(DebugLog.Level.WARN, "nccl watchdog: the store failed: " + e.getMessage());
        }
      }
      LockSupport.parkNanos(head != null ? 2_000_000L : 20_000_000L);
    }
  }
}
