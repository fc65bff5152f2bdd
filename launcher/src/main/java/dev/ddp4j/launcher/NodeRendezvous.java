package dev.ddp4j.launcher;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.InitMethod;
import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import dev.ddp4j.collectives.store.FileStore;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.collectives.store.TcpStoreClient;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Forms one job out of {@code --nnodes} launchers through the job's store, and keeps watching the
 * others while the workers run.
 *
 * <p>Node 0 (or, with {@code --node-rank=-1}, whichever launcher manages to bind the store address)
 * hosts the store. Each launcher takes a node rank (given, or its join order), publishes {@code
 * node/<rank>} = host and nproc, and waits for all ranks. A thread bumps {@code heartbeat/<rank>}
 * every second; while workers run, the launcher checks {@code failed/<round>} every second. A peer
 * whose heartbeat stalls for {@link #PEER_DEAD_AFTER}, a published failure, or losing the store
 * ends this node's group. When its workers succeed a launcher sets {@code done/<round>/<rank>}; the
 * host keeps the store up until every node is done. Keys live under {@code ddp4j/launcher/}.
 *
 * <p>Restarts ({@code --max-restarts}) run in rounds over the same store: a node whose workers fail
 * publishes {@code failed/<round>}; every node stops its workers (or, done already, stops waiting)
 * and meets the others at {@code round/<round+1>/<rank>} before starting the next round's workers,
 * whose restart count is the round (process groups key their store entries by it).
 */
final class NodeRendezvous implements AutoCloseable {

  static final Duration PEER_DEAD_AFTER = Duration.ofSeconds(5);
  private static final Duration MONITOR_STORE_TIMEOUT = Duration.ofSeconds(4);
  private static final long HEARTBEAT_EVERY_NS = 1_000_000_000L;
  private static final String P = "ddp4j/launcher/";

  private final LaunchConfig c;
  private final StoreServer server;
  private final Store store;
  private final int nodeRank;
  private final InitMethod workerStore;
  private final String storeHost; // who hosts the store, for messages: "node 2", "this node, 0"
  private final long[] lastBeat;
  private final long[] lastBeatChangeNs;
  private final java.util.concurrent.ScheduledExecutorService heartbeat;
  private long lastCheckNs;
  private int round;
  private boolean peerFailed;

  private NodeRendezvous(
      LaunchConfig c,
      StoreServer server,
      Store store,
      int nodeRank,
      InitMethod workerStore,
      String storeHost) {
    this.c = c;
    this.storeHost = storeHost;
    this.server = server;
    this.store = store;
    this.nodeRank = nodeRank;
    this.workerStore = workerStore;
    this.lastBeat = new long[c.nnodes()];
    this.lastBeatChangeNs = new long[c.nnodes()];
    this.heartbeat =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ddp4j-launcher-heartbeat");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Joins the job: hosts or reaches the store, takes a node rank, waits for every node.
   *
   * @throws DdpTimeoutException naming the missing node ranks and the store address
   */
  static NodeRendezvous join(LaunchConfig c, PrintStream log) {
    StoreAddress a = c.store();
    StoreServer server = null;
    Store rdzvStore = null;
    try {
      if (a.isFile()) {
        rdzvStore = FileStore.open(a.file(), c.rendezvousTimeout());
      } else {
        server = maybeHost(c, a, log);
        try {
          rdzvStore = TcpStoreClient.connect(a.host(), a.port(), c.secret(), c.rendezvousTimeout());
        } catch (DdpTimeoutException e) {
          throw new DdpTimeoutException(
              "rendezvous timed out after "
                  + c.rendezvousTimeout().toSeconds()
                  + " s: cannot reach the store at "
                  + a
                  + " (hosted by node 0's launcher); is "
                  + a
                  + " reachable from this host, and is node 0 started?");
        }
      }
      int rank = takeRank(c, rdzvStore);
      if (server != null) {
        rdzvStore.set(P + "store-host", Integer.toString(rank).getBytes(StandardCharsets.US_ASCII));
      }
      log.println(
          "[launcher] node "
              + rank
              + " waiting for "
              + c.nnodes()
              + " nodes at "
              + a
              + " (up to "
              + c.rendezvousTimeout().toSeconds()
              + " s)");
      awaitNodes(c, rdzvStore);
      String storeHost =
          a.isFile()
              ? "none: a file store"
              : server != null
                  ? "this node, " + rank
                  : "node "
                      + new String(
                          rdzvStore.get(P + "store-host", c.rendezvousTimeout()),
                          StandardCharsets.US_ASCII);
      Store monitor = rdzvStore;
      if (!a.isFile()) {
        // Watching peers must notice a lost store within seconds, not the rendezvous timeout.
        monitor = TcpStoreClient.connect(a.host(), a.port(), c.secret(), MONITOR_STORE_TIMEOUT);
        rdzvStore.close();
      }
      log.println(
          "[launcher] node "
              + rank
              + " of "
              + c.nnodes()
              + " joined the job at "
              + a
              + (server != null ? " (hosting the store)" : ""));
      NodeRendezvous r =
          new NodeRendezvous(c, server, monitor, rank, a.toInitMethod(a.port()), storeHost);
      r.beat();
      // Beats go on while the launcher stops workers or waits for the others, not only between
      // monitor ticks.
      r.heartbeat.scheduleWithFixedDelay(
          r::beatQuietly, HEARTBEAT_EVERY_NS, HEARTBEAT_EVERY_NS, TimeUnit.NANOSECONDS);
      return r;
    } catch (RuntimeException e) {
      if (rdzvStore != null) {
        rdzvStore.close();
      }
      if (server != null) {
        server.close();
      }
      throw e;
    }
  }

  private static StoreServer maybeHost(LaunchConfig c, StoreAddress a, PrintStream log) {
    String bind = c.storeBindAll() ? "0.0.0.0" : a.host();
    if (c.nodeRank() == 0) {
      return StoreServer.start(bind, a.port(), c.secret());
    }
    if (c.nodeRank() > 0) {
      return null;
    }
    // Join order: whoever can bind the store address hosts it (its address is local there and the
    // port still free); the others are clients. Whoever holds the port must then prove the job
    // secret to them, so a stranger that took it first is refused, not trusted.
    try {
      return StoreServer.start(bind, a.port(), c.secret());
    } catch (StoreException e) {
      if (isLocal(a.host())) {
        log.println(
            "[launcher] cannot host the store at "
                + a
                + " (the port is taken): joining the launcher that holds it, which must prove the"
                + " job secret");
      }
      return null;
    }
  }

  private static boolean isLocal(String host) {
    try {
      InetAddress addr = InetAddress.getByName(host);
      return addr.isLoopbackAddress()
          || addr.isAnyLocalAddress()
          || java.net.NetworkInterface.getByInetAddress(addr) != null;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static int takeRank(LaunchConfig c, Store s) {
    long joined = s.add(P + "joined", 1);
    int rank = c.nodeRank() >= 0 ? c.nodeRank() : (int) joined - 1;
    if (joined > c.nnodes() || rank >= c.nnodes()) {
      throw new DdpException(
          "more launchers joined than --nnodes="
              + c.nnodes()
              + " (this one is number "
              + joined
              + "); start exactly --nnodes launchers, or use another --master-port for another job");
    }
    byte[] me = (host() + " nproc=" + c.nprocPerNode()).getBytes(StandardCharsets.UTF_8);
    byte[] now = s.compareSet(P + "node/" + rank, new byte[0], me);
    if (!java.util.Arrays.equals(now, me)) {
      throw new DdpException(
          "node rank "
              + rank
              + " is taken by "
              + new String(now, StandardCharsets.UTF_8)
              + " (expected: a distinct --node-rank per launcher, or -1 on all of them for join order)");
    }
    s.set(P + "heartbeat/" + rank, "0".getBytes(StandardCharsets.US_ASCII));
    return rank;
  }

  private static void awaitNodes(LaunchConfig c, Store s) {
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < c.nnodes(); r++) {
      keys.add(P + "node/" + r);
    }
    try {
      s.wait(keys, c.rendezvousTimeout());
    } catch (DdpTimeoutException e) {
      List<Integer> missing = new ArrayList<>();
      for (int r = 0; r < c.nnodes(); r++) {
        if (!s.check(List.of(keys.get(r)))) {
          missing.add(r);
        }
      }
      throw new DdpTimeoutException(
          "rendezvous timed out after "
              + c.rendezvousTimeout().toSeconds()
              + " s: "
              + (c.nnodes() - missing.size())
              + " of "
              + c.nnodes()
              + " nodes joined (missing node rank"
              + (missing.size() > 1 ? "s " : " ")
              + missing.toString().replaceAll("[\\[\\]]", "")
              + "); is "
              + c.store()
              + " reachable from "
              + (missing.size() > 1 ? "them" : "it")
              + "?",
          missing);
    }
    String expected = " nproc=" + c.nprocPerNode();
    for (byte[] v : s.multiGet(keys, c.rendezvousTimeout())) {
      String info = new String(v, StandardCharsets.UTF_8);
      if (!info.endsWith(expected)) {
        throw new DdpException(
            "node "
                + info
                + " runs a different --nproc-per-node than this one ("
                + c.nprocPerNode()
                + "); every node of a job must start the same number of workers");
      }
    }
  }

  int nodeRank() {
    return nodeRank;
  }

  InitMethod workerStore() {
    return workerStore;
  }

  /**
   * A reason to stop this node's workers, checked every monitor tick: a peer failed or vanished.
   */
  Optional<String> peerProblem() {
    long now = System.nanoTime();
    if (now - lastCheckNs < HEARTBEAT_EVERY_NS) {
      return Optional.empty();
    }
    lastCheckNs = now;
    try {
      String failed = P + "failed/" + round;
      if (store.check(List.of(failed))) {
        String why = new String(store.get(failed), StandardCharsets.UTF_8);
        store.set(P + "ack/" + round + "/" + nodeRank, new byte[0]);
        peerFailed = true;
        return Optional.of(
            "another node failed, so node " + nodeRank + " stopped its workers:\n" + why.strip());
      }
      return stalledPeer(now);
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

  private void beat() {
    store.add(P + "heartbeat/" + nodeRank, 1);
  }

  private void beatQuietly() {
    try {
      beat();
    } catch (RuntimeException e) {
      // The main thread's own store calls report a lost store.
    }
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
   * Waits until every node has stopped its workers of the previous round and arrived at {@code
   * next}, then makes it the current round.
   *
   * @throws DdpTimeoutException after the rendezvous timeout, naming the nodes that did not come
   * @throws DdpException when a peer vanishes or the store is lost meanwhile
   */
  void startRound(int next) {
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < c.nnodes(); r++) {
      keys.add(P + "round/" + next + "/" + r);
    }
    store.set(keys.get(nodeRank), new byte[0]);
    round = next;
    peerFailed = false;
    long deadlineNs = System.nanoTime() + c.rendezvousTimeout().toNanos();
    while (!store.check(keys)) {
      long now = System.nanoTime();
      Optional<String> stalled = stalledPeer(now);
      if (stalled.isPresent()) {
        throw new DdpException("restart round " + next + " cannot start: " + stalled.get());
      }
      if (now - deadlineNs > 0) {
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < c.nnodes(); r++) {
          if (!store.check(List.of(keys.get(r)))) {
            missing.add(r);
          }
        }
        throw new DdpTimeoutException(
            "restart round "
                + next
                + " timed out after "
                + c.rendezvousTimeout().toSeconds()
                + " s: node rank(s) "
                + missing.toString().replaceAll("[\\[\\]]", "")
                + " did not stop their workers of round "
                + (next - 1),
            missing);
      }
      pause();
    }
  }

  private Optional<String> stalledPeer(long now) {
    for (int r = 0; r < c.nnodes(); r++) {
      if (r == nodeRank || store.check(List.of(P + "done/" + round + "/" + r))) {
        continue;
      }
      long beat =
          Long.parseLong(
              new String(
                  store.get(P + "heartbeat/" + r, MONITOR_STORE_TIMEOUT),
                  StandardCharsets.US_ASCII));
      if (beat != lastBeat[r] || lastBeatChangeNs[r] == 0) {
        lastBeat[r] = beat;
        lastBeatChangeNs[r] = now;
      } else if (now - lastBeatChangeNs[r] > PEER_DEAD_AFTER.toNanos()) {
        String who =
            new String(store.get(P + "node/" + r, MONITOR_STORE_TIMEOUT), StandardCharsets.UTF_8);
        return Optional.of(
            "node "
                + r
                + " ("
                + who
                + ") stopped sending heartbeats "
                + PEER_DEAD_AFTER.toSeconds()
                + " s ago: its launcher died or its host is unreachable; stopped the workers of node "
                + nodeRank);
      }
    }
    return Optional.empty();
  }

  /**
   * Tells the other nodes this one failed (the first failure of a round is the one they report),
   * and, in the job's last round, gives them a moment to read it before the host's store goes.
   */
  void publishFailure(String report, boolean lastRound) {
    try {
      store.compareSet(
          P + "failed/" + round,
          new byte[0],
          ("node " + nodeRank + " on " + host() + ": " + report).getBytes(StandardCharsets.UTF_8));
      if (server != null && lastRound) {
        List<String> acks = new ArrayList<>();
        for (int r = 0; r < c.nnodes(); r++) {
          if (r != nodeRank) {
            acks.add(P + "ack/" + round + "/" + r);
          }
        }
        store.wait(acks, Duration.ofSeconds(3));
      }
    } catch (DdpException e) {
      // Peers that cannot be told notice the lost store or the stalled heartbeat instead.
    }
  }

  /**
   * Marks this node done in this round; the host then waits for every node to be done (or to fail)
   * before it may take the store down. Before the last round every node waits, since a failure
   * elsewhere restarts them all ({@link #peerFailed()} then says so). Empty when the round
   * succeeded everywhere.
   */
  Optional<String> finishSucceeded(boolean lastRound) {
    try {
      store.set(P + "done/" + round + "/" + nodeRank, new byte[0]);
    } catch (DdpException e) {
      return Optional.empty();
    }
    if (server == null && lastRound) {
      return Optional.empty();
    }
    List<String> done = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (int r = 0; r < c.nnodes(); r++) {
      done.add(P + "done/" + round + "/" + r);
      if (r != nodeRank) {
        seen.add(P + "seen/" + round + "/" + r);
      }
    }
    while (true) {
      if (store.check(done)) {
        if (lastRound) {
          return Optional.empty();
        }
        // Waiting nodes must see "all done" before the host closes the store.
        if (server == null) {
          store.set(P + "seen/" + round + "/" + nodeRank, new byte[0]);
        } else {
          try {
            store.wait(seen, MONITOR_STORE_TIMEOUT);
          } catch (DdpException e) {
            // A node that never says it saw: it reports the lost store; this job succeeded.
          }
        }
        return Optional.empty();
      }
      Optional<String> p = peerProblem();
      if (p.isPresent()) {
        return p;
      }
      if (!pause()) {
        return Optional.of("interrupted while waiting for the other nodes to finish");
      }
    }
  }

  private boolean pause() {
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
    heartbeat.shutdownNow();
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
