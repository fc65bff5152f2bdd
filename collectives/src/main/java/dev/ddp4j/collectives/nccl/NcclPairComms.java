package dev.ddp4j.collectives.nccl;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.GroupRank;
import dev.ddp4j.collectives.gpu.PairTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import jcuda.driver.CUstream;

/**
 * The point-to-point messages of an nccl group: one two-rank NCCL communicator per direction of
 * each pair that exchanges messages, made on the first message (the sender makes the unique id and
 * is rank 0 of it, under {@code <prefix>/p2p/<src>-<dst>/id}). NCCL serialises every operation of
 * one communicator, even across streams, and a large ncclSend waits for its ncclRecv: with a single
 * communicator, two ranks that isend to each other before they irecv would wait on each other
 * forever. With a communicator per direction, each direction's messages only ever wait for their
 * own receiver. Called by {@link dev.ddp4j.collectives.gpu.PointToPoint}'s lanes, one thread per
 * direction, which may block here while the peer makes its side of a communicator.
 */
final class NcclPairComms implements PairTransport {

  private final NcclLibrary lib;
  private final int rank;
  private final Store store;
  private final String prefix;
  private final Duration timeout;
  private final BooleanSupplier stopped;
  private final Map<String, NcclComm> comms = new ConcurrentHashMap<>();

  /**
   * @param stopped true once the group was aborted: polls give up
   */
  NcclPairComms(NcclLibrary lib, GroupRank me, String prefix, BooleanSupplier stopped) {
    this.lib = lib;
    this.rank = me.rank();
    this.store = me.store();
    this.timeout = me.timeout();
    this.prefix = prefix + "/p2p/";
    this.stopped = stopped;
  }

  @Override
  public void send(DeviceBuffer b, int peer, CUstream stream) {
    transfer(b, peer, stream, true);
  }

  @Override
  public void receive(DeviceBuffer b, int peer, CUstream stream) {
    transfer(b, peer, stream, false);
  }

  /** On the pair's communicator of this direction, where this rank is 0 when it sends. */
  private void transfer(DeviceBuffer b, int peer, CUstream stream, boolean send) {
    NcclComm c = send ? comm(rank, peer) : comm(peer, rank);
    int type = NcclTypes.dataType(b.dataType());
    long p = b.devicePointer();
    int rc;
    synchronized (c.lock()) {
      requireUsable(c, peer);
      long h = c.handle();
      long s = Cu.handle(stream);
      rc =
          send
              ? NcclDirect.ncclSend(p, b.count(), type, 1, h, s)
              : NcclDirect.ncclRecv(p, b.count(), type, 0, h, s);
    }
    settle(c, rc, send ? "ncclSend to rank " + peer : "ncclRecv from rank " + peer, peer);
  }

  private void requireUsable(NcclComm c, int peer) {
    if (c.gone()) {
      throw new DdpException(
          "nccl group on rank "
              + rank
              + ": the communicator for messages with rank "
              + peer
              + " was aborted; close the group and create a new one");
    }
  }

  /** The communicator of messages from {@code src} to {@code dst}, made on first use. */
  private NcclComm comm(int src, int dst) {
    // Each key is only ever used by one lane's thread; computeIfAbsent would hold a map bin while
    // the peer connects, which may block the other direction's lane.
    String key = src + "-" + dst;
    NcclComm c = comms.get(key);
    if (c == null) {
      c = open(src, dst);
      comms.put(key, c);
    }
    return c;
  }

  private NcclComm open(int src, int dst) {
    int peer = src == rank ? dst : src;
    int pairRank = src == rank ? 0 : 1;
    byte[] id;
    try {
      id =
          NcclIdExchange.agree(
              store, prefix + src + "-" + dst + "/id", pairRank, timeout, lib::uniqueId);
    } catch (DdpTimeoutException e) {
      throw new DdpTimeoutException(
          "nccl group on rank "
              + rank
              + ": rank "
              + peer
              + " sent no first message within "
              + timeout.toSeconds()
              + " s (missing rank "
              + peer
              + ")",
          List.of(peer));
    }
    try {
      return NcclComm.init(lib, 2, id, pairRank, System.nanoTime() + timeout.toNanos(), stopped);
    } catch (NcclComm.Late e) {
      throw new DdpTimeoutException(
          "nccl group on rank "
              + rank
              + ": the communicator for messages "
              + (src == rank ? "to" : "from")
              + " rank "
              + peer
              + " did not connect within "
              + timeout.toSeconds()
              + " s (missing rank "
              + peer
              + "?)",
          List.of(peer));
    } catch (NcclComm.GaveUp e) {
      throw new DdpException(
          "nccl group on rank " + rank + ": aborted while connecting to " + peer);
    }
  }

  private void settle(NcclComm c, int rc, String call, int peer) {
    try {
      c.settle(call, rc, System.nanoTime() + timeout.toNanos(), stopped::getAsBoolean);
    } catch (NcclComm.Late e) {
      c.abort();
      throw new DdpTimeoutException(
          call
              + " on rank "
              + rank
              + " was not queued within "
              + timeout.toSeconds()
              + " s (rank "
              + peer
              + " did not connect); its communicator was aborted",
          List.of(peer));
    }
  }

  /** Aborts every pair communicator, which ends their kernels (close, after a failure). */
  void abortAll() {
    comms.values().forEach(NcclComm::abort);
  }

  /** Finalises and destroys every pair communicator; the problems met, one line each. */
  List<RuntimeException> close(long deadlineNs) {
    List<RuntimeException> errors = new ArrayList<>();
    for (Map.Entry<String, NcclComm> e : comms.entrySet()) {
      String problem = e.getValue().finalizeAndDestroy(deadlineNs);
      if (problem != null) {
        errors.add(
            new DdpException(
                "pair communicator " + e.getKey() + ": " + problem + "; it was aborted"));
      }
    }
    comms.clear();
    return errors;
  }
}
