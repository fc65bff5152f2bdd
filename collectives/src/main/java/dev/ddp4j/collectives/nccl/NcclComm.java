package dev.ddp4j.collectives.nccl;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One non-blocking NCCL communicator ({@code ncclConfig_t.blocking = 0}): NCCL's calls return at
 * once, with {@code ncclInProgress} where NCCL still works in the background (initialisation,
 * connecting to peers on a first collective), and this class polls {@code ncclCommGetAsyncError}
 * until that settles or a deadline passes. So no thread ever blocks inside NCCL, and a watchdog can
 * {@link #abort} at any time: every call holds this object's lock, which the polls release between
 * looks, and nothing is called on the communicator after the abort.
 */
final class NcclComm {

  /** Thrown by a poll whose deadline passed; the caller says who is missing. */
  static final class Late extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Late() {
      super(null, null, false, false);
    }
  }

  private final NcclLibrary lib;
  private final Pointer comm;
  private final long handle;

  /** Four bytes of native memory for the async-error polls of the hot path (no allocation). */
  private final Memory resultWord = new Memory(4);

  private boolean aborted;
  private boolean destroyed;

  private NcclComm(NcclLibrary lib, Pointer comm) {
    this.lib = lib;
    this.comm = comm;
    this.handle = Pointer.nativeValue(comm);
  }

  /** Thrown by an init that stopped because another member gave up. */
  static final class GaveUp extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GaveUp() {
      super(null, null, false, false);
    }
  }

  /**
   * {@code ncclCommInitRankConfig}, polled until the communicator is ready.
   *
   * @param peerGaveUp polled meanwhile: true stops the init (another member failed)
   * @throws Late when it is not ready by {@code deadlineNs} (the communicator is aborted first)
   * @throws GaveUp when {@code peerGaveUp} turned true first (likewise)
   * @throws NcclException when NCCL reports an error (likewise)
   */
  static NcclComm init(
      NcclLibrary lib,
      int nranks,
      byte[] id,
      int rank,
      long deadlineNs,
      java.util.function.BooleanSupplier peerGaveUp) {
    PointerByReference out = new PointerByReference();
    int rc =
        lib.api()
            .ncclCommInitRankConfig(
                out, nranks, new NcclUniqueId.ByValue(id), rank, NcclConfig.nonBlocking());
    Pointer p = out.getValue();
    if (p == null) {
      throw new NcclException("ncclCommInitRankConfig", rc, lib.errorString(rc), null);
    }
    NcclComm c = new NcclComm(lib, p);
    if (rc != NcclTypes.SUCCESS && rc != NcclTypes.IN_PROGRESS) {
      String last = lib.lastError(p);
      c.abort();
      throw new NcclException("ncclCommInitRankConfig", rc, lib.errorString(rc), last);
    }
    boolean[] gaveUp = {false};
    try {
      c.settle(
          "ncclCommInitRankConfig", rc, deadlineNs, () -> gaveUp[0] = peerGaveUp.getAsBoolean());
    } catch (RuntimeException e) {
      c.abort();
      throw e;
    }
    if (gaveUp[0]) {
      c.abort();
      throw new GaveUp();
    }
    return c;
  }

  /** The raw {@code ncclComm_t}, for {@link NcclDirect}'s calls made under {@link #lock()}. */
  long handle() {
    return handle;
  }

  /** The lock every call on the communicator holds. */
  Object lock() {
    return this;
  }

  /** True once aborted or destroyed: the handle must not be used. */
  synchronized boolean gone() {
    return aborted || destroyed;
  }

  /**
   * Waits for a call that returned {@code rc} to settle: at once for ncclSuccess, else polling the
   * async error while it reads ncclInProgress.
   *
   * @param stop true when the group gave up meanwhile (aborted by its watchdog)
   * @throws Late past {@code deadlineNs}, without aborting (the caller decides what to report)
   * @throws NcclException naming {@code call} when NCCL reports an error
   */
  void settle(String call, int rc, long deadlineNs, Supplier<Boolean> stop) {
    long parkNs = 1_000;
    while (rc == NcclTypes.IN_PROGRESS) {
      if (stop.get()) {
        return;
      }
      if (System.nanoTime() - deadlineNs > 0) {
        throw new Late();
      }
      LockSupport.parkNanos(parkNs);
      parkNs = Math.min(parkNs * 2, 1_000_000);
      rc = asyncError();
    }
    if (rc != NcclTypes.SUCCESS) {
      String last;
      synchronized (this) {
        last = gone() ? "" : lib.lastError(comm);
      }
      throw new NcclException(call, rc, lib.errorString(rc), last);
    }
  }

  /**
   * {@code ncclCommGetAsyncError}: ncclSuccess, ncclInProgress, or the error that broke the
   * communicator (a peer gone: ncclRemoteError or ncclSystemError). ncclSuccess once gone.
   */
  synchronized int asyncError() {
    if (aborted || destroyed) {
      return NcclTypes.SUCCESS;
    }
    int rc = NcclDirect.ncclCommGetAsyncError(handle, Pointer.nativeValue(resultWord));
    return rc != NcclTypes.SUCCESS ? rc : resultWord.getInt(0);
  }

  /** NCCL's message about this communicator's last error, or empty. */
  synchronized String lastError() {
    return gone() ? "" : lib.lastError(comm);
  }

  /**
   * {@code ncclCommAbort}: stops this rank's NCCL kernels and frees the communicator; its peers see
   * their connections to this rank fail. Idempotent.
   */
  synchronized void abort() {
    if (aborted || destroyed) {
      return;
    }
    aborted = true;
    lib.api().ncclCommAbort(comm);
  }

  /**
   * {@code ncclCommFinalize} (flushes what was issued, polled to its end), then {@code
   * ncclCommDestroy}; aborts instead when finalising fails or runs past {@code deadlineNs}.
   *
   * @return null, or why it aborted
   */
  String finalizeAndDestroy(long deadlineNs) {
    int rc;
    synchronized (this) {
      if (aborted || destroyed) {
        return null;
      }
      rc = lib.api().ncclCommFinalize(comm);
    }
    String problem = null;
    try {
      if (rc != NcclTypes.SUCCESS && rc != NcclTypes.IN_PROGRESS) {
        throw new NcclException("ncclCommFinalize", rc, lib.errorString(rc), lastError());
      }
      settle("ncclCommFinalize", rc, deadlineNs, this::gone);
    } catch (Late e) {
      problem = "ncclCommFinalize did not finish by the group's timeout";
    } catch (NcclException e) {
      problem = e.getMessage();
    }
    synchronized (this) {
      if (problem != null) {
        abort();
      } else if (!aborted && !destroyed) {
        destroyed = true;
        lib.api().ncclCommDestroy(comm);
      }
    }
    return problem;
  }
}
