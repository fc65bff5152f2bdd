package dev.ddp4j.launcher;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.InitMethod;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.StoreServer;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Forms one job out of {@code --nnodes} launchers through the job's store ({@link NodeJoin}), and
 * keeps watching the others while the workers run: a peer whose heartbeat stalls ({@link
 * PeerHeartbeats}), a failure a peer published ({@code failed/<round>}, checked every second), or
 * losing the store ends this node's group. When its workers succeed a launcher meets the others at
 * the completion barrier ({@link NodeCompletion}); the host keeps the store up until every node is
 * done. The keys are in {@link NodeRendezvousDescriptor}.
 *
 * <p>Restarts ({@code --max-restarts}) run in rounds over the same store: a node whose workers fail
 * publishes {@code failed/<round>}; every node stops its workers (or, done already, stops waiting)
 * and meets the others at {@link RoundStart} before starting the next round's workers, whose
 * restart count is the round (process groups key their store entries by it).
 */
final class NodeRendezvous implements AutoCloseable {

  private static final Duration MONITOR_STORE_TIMEOUT = Duration.ofSeconds(4);

  private final LaunchConfig c;
  private final StoreServer server;
  private final Store store;
  private final int nodeRank;
  private final InitMethod workerStore;
  private final String storeHost; // who hosts the store, for messages: "node 2", "this node, 0"
  private final PeerHeartbeats heartbeats;
  private long lastCheckNs;
  private int round;
  private boolean peerFailed;

  private NodeRendezvous(LaunchConfig c, NodeJoin.Joined j, PeerHeartbeats heartbeats) {
    this.c = c;
    this.server = j.server();
    this.store = j.store();
    this.nodeRank = j.nodeRank();
    this.storeHost = j.storeHost();
    this.workerStore = c.store().toInitMethod(c.store().port());
    this.heartbeats = heartbeats;
  }

  /**
   * Joins the job: hosts or reaches the store, takes a node rank, waits for every node, and starts
   * this node's heartbeat.
   *
   * @throws NodeJoin.JoinException naming the missing node ranks and the store address
   */
  static NodeRendezvous join(LaunchConfig c, PrintStream log) {
    NodeJoin.Joined j = NodeJoin.join(request(c), new JoinLog(c, log));
    try {
      return new NodeRendezvous(
          c, j, new PeerHeartbeats(j.store(), j.nodeRank(), c.nnodes(), MONITOR_STORE_TIMEOUT));
    } catch (RuntimeException e) {
      j.close();
      throw e;
    }
  }

  private static NodeJoin.Request request(LaunchConfig c) {
    StoreAddress a = c.store();
    return new NodeJoin.Request(
        c.nnodes(),
        c.nodeRank(),
        c.nprocPerNode(),
        host(),
        a,
        c.storeBindAll() ? "0.0.0.0" : a.host(),
        c.secret(),
        c.rendezvousTimeout(),
        // Watching peers must notice a lost store within seconds, not the rendezvous timeout.
        MONITOR_STORE_TIMEOUT);
  }

  /** The launcher's lines about joining, on its console. */
  private record JoinLog(LaunchConfig c, PrintStream log) implements NodeJoin.Progress {

    @Override
    public void portTaken() {
      log.println(
          "[launcher] cannot host the store at "
              + c.store()
              + " (the port is taken): joining the launcher that holds it, which must prove the"
              + " job secret");
    }

    @Override
    public void rankTaken(int nodeRank, boolean hosting) {
      log.println(
          "[launcher] node "
              + nodeRank
              + " waiting for "
              + c.nnodes()
              + " nodes at "
              + c.store()
              + " (up to "
              + c.rendezvousTimeout().toSeconds()
              + " s)");
    }

    @Override
    public void allJoined(int nodeRank, boolean hosting) {
      log.println(
          "[launcher] node "
              + nodeRank
              + " of "
              + c.nnodes()
              + " joined the job at "
              + c.store()
              + (hosting ? " (hosting the store)" : ""));
    }
  }

  int nodeRank() {
    return nodeRank;
  }

  InitMethod workerStore() {
    return workerStore;
  }

  /** The round ({@code --max-restarts} attempt) now running; its workers' restart count. */
  int round() {
    return round;
  }

  /** Whether another node published a worker failure in this round (a restart may follow). */
  boolean peerFailed() {
    return peerFailed;
  }

  /**
   * A reason to stop this node's workers, checked every monitor tick: a peer failed or vanished.
   */
  Optional<String> peerProblem() {
    long now = System.nanoTime();
    if (now - lastCheckNs < PeerHeartbeats.HEARTBEAT_EVERY_NS) {
      return Optional.empty();
    }
    lastCheckNs = now;
    try {
      String failed = NodeRendezvousDescriptor.failed(round);
      if (store.check(List.of(failed))) {
        String why = new String(store.get(failed), StandardCharsets.UTF_8);
        store.set(NodeRendezvousDescriptor.ack(round, nodeRank), new byte[0]);
        peerFailed = true;
        return Optional.of(
            "another node failed, so node " + nodeRank + " stopped its workers:\n" + why.strip());
      }
      return heartbeats.stalledPeer(round, now);
    } catch (DdpException e) {
      return Optional.of(
          "lost the job's store at "
              + c.store()
              + " ("
              + firstLine(e.getMessage())
              + "); the launcher hosting it ("
              + storeHost
              + ") died or its node failed");
    }
  }

  /**
   * Waits until every node has stopped its workers of the previous round and arrived at {@code
   * next}, then makes it the current round.
   *
   * @throws DdpTimeoutException after the rendezvous timeout, naming the nodes that did not come
   * @throws DdpException when a peer vanishes or the store is lost meanwhile
   */
  void startRound(int next) {
    RoundStart.arrive(store, next, nodeRank);
    round = next;
    peerFailed = false;
    RoundStart.awaitOthers(store, c, next, heartbeats);
  }

  /**
   * Tells the other nodes this one failed (the first failure of a round is the one they report),
   * and, in the job's last round, gives them a moment to read it before the host's store goes.
   */
  void publishFailure(String report, boolean lastRound) {
    try {
      store.compareSet(
          NodeRendezvousDescriptor.failed(round),
          new byte[0],
          ("node " + nodeRank + " on " + host() + ": " + report).getBytes(StandardCharsets.UTF_8));
      if (server != null && lastRound) {
        List<String> acks = new ArrayList<>();
        for (int r = 0; r < c.nnodes(); r++) {
          if (r != nodeRank) {
            acks.add(NodeRendezvousDescriptor.ack(round, r));
          }
        }
        store.wait(acks, Duration.ofSeconds(3));
      }
    } catch (DdpException e) {
      // Peers that cannot be told notice the lost store or the stalled heartbeat instead.
    }
  }

  /**
   * Marks this node done in this round and meets the others ({@link NodeCompletion}); {@link
   * #peerFailed()} then says whether a failure elsewhere ended the wait. Empty when the round
   * succeeded everywhere.
   */
  Optional<String> finishSucceeded(boolean lastRound) {
    return NodeCompletion.finish(
        store,
        c,
        nodeRank,
        round,
        server != null,
        lastRound,
        MONITOR_STORE_TIMEOUT,
        this::peerProblem);
  }

  /** Sleeps one monitor interval; false when interrupted (the flag is set again). */
  static boolean pause(LaunchConfig c) {
    try {
      Thread.sleep(c.monitorInterval().toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    heartbeats.close();
    store.close();
    if (server != null) {
      server.close();
    }
  }

  static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }

  private static String firstLine(String s) {
    int nl = s == null ? -1 : s.indexOf('\n');
    return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
  }
}
