package dev.ddp4j.collectives.gpu;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.Store;
import dev.ddp4j.Work;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The point-to-point messages of a device group (isend/irecv of device buffers), the same for the
 * cuda and nccl backends; a {@link PairTransport} moves the bytes. Each direction of each pair on
 * this rank (sends to p, receives from p) is a lane with a thread and a CUDA stream of its own:
 *
 * <pre>
 *   caller thread:  record "ready" on the buffer's stream; number the message n (per lane); post it
 *   lane thread:    store key &lt;prefix&gt;/p2p/&lt;src&gt;-&lt;dst&gt;/&lt;n&gt;/send|recv = "count DTYPE";
 *                   wait for the peer's key (the group's timeout names the peer), compare;
 *                   lane stream waits for "ready"; the transport queues the bytes; record "done"
 *   Work:           waits for the lane to have queued it, then for "done"
 * </pre>
 *
 * A send may wait on the GPU for its receiver to drain (the transports move large messages in
 * chunks): so the sends and the receives of a pair have streams of their own, or two ranks that
 * send to each other before receiving would wait on each other; and the caller's stream does not
 * wait for the message either (await its Work before touching the buffer). One lane keeps its
 * messages in issue order; lanes of different peers are independent. A send and a receive whose
 * shapes differ fail on both ranks, and their lanes stay failed (their message numbers no longer
 * match). Messages take no collective sequence number: a Work's number is the lane's.
 */
public final class PointToPoint {

  private final String backend;
  private final int rank;
  private final String prefix;
  private final Store store;
  private final Duration timeout;
  private final GroupDevice gpu;
  private final PairTransport transport;
  private final CudaWork.GroupFailure groupFailure;
  private final Lane[] sends;
  private final Lane[] receives;

  /** Works not seen complete, oldest first (what close waits for). */
  private final ArrayDeque<QueuedWork> issued = new ArrayDeque<>();

  /**
   * @param prefix the group's store prefix, the same on every rank
   * @param groupFailure where the group fails its works at once (null: only through the events)
   */
  public PointToPoint(
      String backend,
      GroupRank member,
      String prefix,
      GroupDevice gpu,
      PairTransport transport,
      CudaWork.GroupFailure groupFailure) {
    this.backend = backend;
    this.rank = member.rank();
    this.prefix = prefix + "/p2p/";
    this.store = member.store();
    this.timeout = member.timeout();
    this.gpu = gpu;
    this.transport = transport;
    this.groupFailure = groupFailure;
    this.sends = new Lane[member.size()];
    this.receives = new Lane[member.size()];
  }

  /** Posts sending {@code b} to {@code dst} (checked: another rank of the group). */
  public synchronized Work isend(DeviceBuffer b, int dst) {
    Lane lane = sends[dst] == null ? sends[dst] = new Lane(true, dst) : sends[dst];
    return lane.post(b);
  }

  /** Posts receiving {@code b} from {@code src} (checked: another rank of the group). */
  public synchronized Work irecv(DeviceBuffer b, int src) {
    Lane lane = receives[src] == null ? receives[src] = new Lane(false, src) : receives[src];
    return lane.post(b);
  }

  /**
   * Waits for every message not seen complete (up to the timeout in all), adding the failures to
   * {@code errors} (not those that failed before reaching the GPU: their Work reported them); then,
   * if some never completed, runs {@code unstick} (which must let the lanes' streams run to their
   * end, e.g. by releasing the flags they wait on), waits for the streams and stops the lanes.
   * Needs the context current.
   */
  public synchronized void close(List<RuntimeException> errors, Runnable unstick) {
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    boolean stuck = false;
    for (QueuedWork w : issued) {
      if (w.failedBeforeTheGpu()) {
        continue; // its own error (a mismatch, a missing peer) went to its Work; nothing is queued
      }
      try {
        w.await(Duration.ofNanos(Math.max(0, deadlineNs - System.nanoTime())));
      } catch (RuntimeException e) {
        errors.add(e);
        stuck |= !w.isCompleted() || w.queuedWork() == null;
      }
    }
    issued.clear();
    for (Lane[] lanes : List.of(sends, receives)) {
      for (Lane l : lanes) {
        if (l != null) {
          l.thread.shutdownNow();
        }
      }
    }
    if (stuck) {
      unstick.run();
    }
    for (Lane[] lanes : List.of(sends, receives)) {
      for (Lane l : lanes) {
        if (l != null) {
          try {
            l.thread.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          gpu.makeCurrent();
          JCudaDriver.cuStreamSynchronize(l.stream);
          JCudaDriver.cuStreamDestroy(l.stream);
        }
      }
    }
  }

  /** Retires finished works now and then (a poll is a driver call). */
  private void retireSome() {
    if (issued.size() > 256) {
      while (!issued.isEmpty() && issued.peekFirst().isCompleted()) {
        issued.removeFirst();
      }
    }
  }

  private static String shape(DeviceBuffer b) {
    return b.count() + " " + b.dataType();
  }

  /** One direction of one pair: its thread, its stream and its message numbers. */
  private final class Lane {
    private final boolean sending;
    private final int peer;
    private final ExecutorService thread;
    private final CUstream stream = new CUstream();
    private long next;

    /** Set by the lane's thread once a message failed: every later one fails with it. */
    private volatile DdpException broken;

    Lane(boolean sending, int peer) {
      this.sending = sending;
      this.peer = peer;
      Cu.check(
          JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
          "cuStreamCreate of a p2p stream");
      String name =
          "ddp4j-" + backend + "-p2p-" + (sending ? "send-to-" : "recv-from-") + peer + "-rank";
      this.thread =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, name + rank);
                t.setDaemon(true);
                return t;
              });
      thread.execute(gpu::makeCurrent);
    }

    private String what(DeviceBuffer b) {
      return (sending ? "isend(" : "irecv(")
          + shape(b)
          + (sending ? " to rank " : " from rank ")
          + peer
          + ")";
    }

    /** On the caller's thread: numbers the message and hands it to the lane's thread. */
    Work post(DeviceBuffer b) {
      gpu.makeCurrent();
      CUevent ready = gpu.events().take();
      Cu.check(JCudaDriver.cuEventRecord(ready, Cu.stream(b.stream())), "cuEventRecord");
      long n = next++;
      String what = what(b);
      CompletableFuture<CudaWork> queued = new CompletableFuture<>();
      thread.execute(() -> run(b, n, what, ready, queued));
      QueuedWork w = new QueuedWork(n, () -> what, timeout, peer, queued);
      retireSome();
      issued.addLast(w);
      return w;
    }

    /** On the lane's thread, in issue order. */
    private void run(
        DeviceBuffer b, long n, String what, CUevent ready, CompletableFuture<CudaWork> queued) {
      try {
        DdpException failed = broken;
        if (failed != null) {
          throw new DdpException(
              what
                  + " #"
                  + n
                  + " on rank "
                  + rank
                  + ": this pair's messages are out of step since an earlier one failed ("
                  + failed.getMessage()
                  + "); close the group and create a new one",
              failed);
        }
        agreeShape(b, n, what);
        Cu.check(JCudaDriver.cuStreamWaitEvent(stream, ready, 0), "cuStreamWaitEvent");
        if (b.count() > 0) {
          if (sending) {
            transport.send(b, peer, stream);
          } else {
            transport.receive(b, peer, stream);
          }
        }
        CUevent done = gpu.events().take();
        Cu.check(JCudaDriver.cuEventRecord(done, stream), "cuEventRecord");
        queued.complete(
            new CudaWork(n, () -> what, timeout, gpu.context(), gpu.events(), done, groupFailure));
      } catch (RuntimeException e) {
        DdpException d =
            e instanceof DdpException de
                ? de
                : new DdpException(what + " #" + n + " on rank " + rank + " failed: " + e, e);
        if (broken == null) {
          broken = d;
        }
        queued.completeExceptionally(d);
      } finally {
        // The stream's wait took the event's state when it was queued: the event may go back.
        gpu.events().release(ready);
      }
    }

    /**
     * Publishes this side's shape of message n and compares it with the peer's; deletes the peer's
     * key once read (each key is read by one rank).
     */
    private void agreeShape(DeviceBuffer b, long n, String what) {
      int src = sending ? rank : peer;
      int dst = sending ? peer : rank;
      String base = prefix + src + "-" + dst + "/" + n + "/";
      String mine = base + (sending ? "send" : "recv");
      String theirs = base + (sending ? "recv" : "send");
      store.set(mine, shape(b).getBytes(StandardCharsets.UTF_8));
      String other;
      try {
        other = new String(store.get(theirs, timeout), StandardCharsets.UTF_8);
      } catch (DdpTimeoutException e) {
        store.delete(mine); // so that a late peer fails here too rather than waiting on the GPU
        throw new DdpTimeoutException(
            what
                + " #"
                + n
                + " on rank "
                + rank
                + ": rank "
                + peer
                + " posted no matching "
                + (sending ? "irecv" : "isend")
                + " within "
                + timeout.toSeconds()
                + " s (missing rank "
                + peer
                + ")",
            List.of(peer));
      }
      store.delete(theirs);
      if (!other.equals(shape(b))) {
        throw new CollectiveMismatchException(
            what
                + " #"
                + n
                + " on rank "
                + rank
                + ": "
                + shape(b)
                + ", but rank "
                + peer
                + "'s "
                + (sending ? "irecv" : "isend")
                + " #"
                + n
                + " has "
                + other
                + " (a send and its receive must have the same count and dtype)");
      }
    }
  }
}
