package dev.ddp4j.collectives.transport;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The {@link Links} of a cpu group: shared memory between ranks that share a node (unless {@code
 * DDP4J_SHM_DISABLE=1}), Netty sockets to the others.
 */
public final class HostLinks implements Links {

  private static final long PID_CHECK_INTERVAL_NS = 100_000_000L;

  private final int rank;
  private final int size;
  private final TransportConfig config;
  private final ShmLinks shm; // null when no peer shares this node
  private final SocketLinks sockets; // null when every peer shares this node
  private final SendPort[][] sendPorts; // [peer][channel]; channel channels() is point-to-point's
  private final RecvPort[][] recvPorts;
  private final long[] pidCheckedNs;
  private final boolean[] exited;
  private final String[] nodeOf; // [rank]: the node (shared-memory domain) it runs on
  private final DirectPeers.Decision cma; // null when the group spans nodes or has one rank

  private HostLinks(
      int rank,
      int size,
      TransportConfig config,
      ShmLinks shm,
      SocketLinks sockets,
      String[] nodeOf,
      DirectPeers.Decision cma) {
    this.rank = rank;
    this.cma = cma;
    this.nodeOf = nodeOf;
    this.size = size;
    this.config = config;
    this.shm = shm;
    this.sockets = sockets;
    this.sendPorts = new SendPort[size][config.channels() + 1];
    this.recvPorts = new RecvPort[size][config.channels() + 1];
    this.pidCheckedNs = new long[size];
    this.exited = new boolean[size];
    for (int p = 0; p < size; p++) {
      for (int c = 0; c <= config.channels() && p != rank; c++) {
        boolean local = shm != null && shm.has(p);
        sendPorts[p][c] = local ? shm.sendPort(p, c) : sockets.sendPort(p, c);
        recvPorts[p][c] = local ? shm.recvPort(p, c) : sockets.recvPort(p, c);
      }
    }
  }

  /**
   * Connects {@code rank} to every other rank of a group of {@code size}; collective over the
   * group. {@code keyPrefix} keeps this group's store keys apart from other groups'.
   */
  public static HostLinks connect(
      Store store, String keyPrefix, int rank, int size, TransportConfig config, Duration timeout) {
    String node = config.shmDisabled() ? "rank-" + rank : NodeIdentity.current();
    StoreExchange exchange = new StoreExchange(store, rank, size, timeout);
    String[] nodeOf =
        exchange.allGather(keyPrefix + "node/", node, ExchangeCodec.UTF8).toArray(String[]::new);
    int[] nodeRanks = IntStream.range(0, size).filter(r -> node.equals(nodeOf[r])).toArray();
    ShmLinks shm = null;
    SocketLinks sockets = null;
    // Before peers can probe this rank: under Yama ptrace_scope=1 they may read it only once it
    // allowed them (a peer probes once it mapped this rank's ring file, published after this).
    boolean cma = nodeRanks.length == size && size > 1 && config.cmaWanted();
    String yama = cma ? CrossMemory.allowPeersUnderYama() : null;
    try {
      DirectPeers.Decision decision = null;
      if (nodeRanks.length > 1) {
        shm =
            ShmLinks.connect(
                exchange,
                keyPrefix,
                nodeRanks,
                config.ringLayout(nodeRanks.length),
                config.shmDir(),
                config.fallbackDir());
        // One round says "mapped" and carries the cross-memory probe, which needs only the
        // peers' files (their probe words were set before they published them).
        boolean direct = nodeRanks.length == size;
        List<String> notes =
            shm.awaitMapped(
                exchange, keyPrefix, direct ? DirectPeers.note(rank, size, shm, config) : "");
        if (direct) {
          SharedHostMemory shared =
              new SharedHostMemory(
                  store, keyPrefix, rank, size, config.shmDir(), config.fallbackDir(), timeout);
          decision = DirectPeers.decide(notes, rank, size, shm, shared, config, yama);
        }
      }
      if (nodeRanks.length < size) {
        sockets = SocketLinks.connect(exchange, keyPrefix, nodeRanks, config, timeout);
      }
      return new HostLinks(rank, size, config, shm, sockets, nodeOf, decision);
    } catch (RuntimeException e) {
      if (shm != null) {
        shm.close();
      }
      if (sockets != null) {
        sockets.close();
      }
      throw e;
    }
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public int channels() {
    return config.channels();
  }

  @Override
  public int pieceBytes() {
    return config.slotBytes();
  }

  @Override
  public SendPort sendPort(int peer, int channel) {
    return sendPorts[peer][channel];
  }

  @Override
  public RecvPort recvPort(int peer, int channel) {
    return recvPorts[peer][channel];
  }

  /**
   * The connection to {@code peer} that carries only point-to-point messages: a ring or socket
   * channel of its own, so a send that waits for its receiver never holds up a collective (nor a
   * collective a send). Used by one thread, the group's point-to-point thread.
   */
  public SendPort pointToPointSendPort(int peer) {
    return sendPorts[peer][config.channels()];
  }

  /** The receiving end of {@link #pointToPointSendPort} from {@code peer}. */
  public RecvPort pointToPointRecvPort(int peer) {
    return recvPorts[peer][config.channels()];
  }

  /**
   * The node each rank runs on (equal strings: one shared-memory domain), index = rank; the same on
   * every rank of the group.
   */
  public List<String> nodes() {
    return List.of(nodeOf);
  }

  /** What the hop from this rank to {@code peer} crosses, for route logs. */
  public String route(int peer) {
    return sendPorts[peer][0].route();
  }

  /**
   * Direct reads of every peer's buffers, or null when the group spans nodes or has one rank. Their
   * cross-memory half may be off ({@link #cmaDecision()} says why).
   */
  public DirectPeers direct() {
    return cma == null ? null : cma.peers();
  }

  /** Host memory every rank maps, or null when the group spans nodes or has one rank. */
  public SharedHostMemory sharedMemory() {
    return cma == null ? null : cma.peers().shared();
  }

  /** Whether and why this group uses cross-memory attach, for the log; null if not applicable. */
  public String cmaDecision() {
    return cma == null ? null : cma.reason();
  }

  /** True when a rank tried cross-memory attach and the kernel refused (worth a warning). */
  public boolean cmaRefused() {
    return cma != null && cma.refused();
  }

  @Override
  public void started(long sequence) {
    if (shm != null) {
      shm.started(sequence);
    }
  }

  @Override
  public void failed(long sequence, String reason) {
    if (shm != null) {
      shm.failed(sequence);
    }
    if (sockets != null) {
      sockets.failed(sequence, reason);
    }
  }

  @Override
  public String peerGone(int peer, boolean fresh) {
    if (shm != null && shm.has(peer)) {
      long now = System.nanoTime();
      if (fresh || now - pidCheckedNs[peer] > PID_CHECK_INTERVAL_NS) {
        pidCheckedNs[peer] = now;
        long pid = shm.pid(peer);
        exited[peer] = !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
      }
      return exited[peer] ? "rank " + peer + " (pid " + shm.pid(peer) + ") exited" : null;
    }
    return sockets == null ? null : sockets.gone(peer);
  }

  @Override
  public String peerFailed(int peer) {
    if (shm != null && shm.has(peer)) {
      long failed = shm.failedOn(peer);
      return failed == 0
          ? null
          : "rank " + peer + " gave up on collective #" + (failed - 1) + " (its log says why)";
    }
    return sockets == null ? null : sockets.failure(peer);
  }

  @Override
  public List<Integer> notStarted(long sequence) {
    List<Integer> missing = new ArrayList<>();
    for (int p = 0; p < size; p++) {
      if (p != rank && shm != null && shm.has(p) && shm.startedBy(p) <= sequence) {
        missing.add(p);
      }
    }
    return missing;
  }

  @Override
  public void close() {
    if (direct() != null) {
      direct().close();
    }
    if (shm != null) {
      shm.close();
    }
    if (sockets != null) {
      sockets.close();
    }
  }
}
