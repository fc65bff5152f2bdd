package dev.ddp4j.launcher;

import static dev.ddp4j.launcher.NodeRendezvousDescriptor.ascii;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.FileStore;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.collectives.store.TcpStoreClient;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Forms the job out of {@code --nnodes} launchers: node 0 (or, with {@code --node-rank=-1},
 * whichever launcher can bind the store address) hosts the store; each launcher takes a node rank
 * (given, or its join order), publishes {@code node/<rank>} and waits for every rank.
 */
final class NodeJoin {

  /** What joining produced; the caller owns the server and the store and must close them. */
  record Joined(StoreServer server, Store store, int nodeRank, String storeHost) {}

  private NodeJoin() {}

  /**
   * Hosts or reaches the store, takes a node rank, waits for every node, and returns the store
   * connection to watch peers with (a short timeout: a lost store must be noticed in seconds).
   *
   * @throws DdpTimeoutException naming the missing node ranks and the store address
   */
  static Joined join(LaunchConfig c, PrintStream log, Duration monitorTimeout) {
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
        rdzvStore.set(NodeRendezvousDescriptor.storeHost(), ascii(Integer.toString(rank)));
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
      awaitNodes(c, rdzvStore, rank);
      String storeHost =
          a.isFile()
              ? "none: a file store"
              : server != null
                  ? "this node, " + rank
                  : "node "
                      + ascii(
                          rdzvStore.get(
                              NodeRendezvousDescriptor.storeHost(), c.rendezvousTimeout()));
      Store monitor = rdzvStore;
      if (!a.isFile()) {
        // Watching peers must notice a lost store within seconds, not the rendezvous timeout.
        monitor = TcpStoreClient.connect(a.host(), a.port(), c.secret(), monitorTimeout);
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
      return new Joined(server, monitor, rank, storeHost);
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
    long joined = s.add(NodeRendezvousDescriptor.joined(), 1);
    int rank = c.nodeRank() >= 0 ? c.nodeRank() : (int) joined - 1;
    if (joined > c.nnodes() || rank >= c.nnodes()) {
      throw new DdpException(
          "more launchers joined than --nnodes="
              + c.nnodes()
              + " (this one is number "
              + joined
              + "); start exactly --nnodes launchers, or use another --master-port for another job");
    }
    byte[] me =
        (NodeRendezvous.host() + " nproc=" + c.nprocPerNode()).getBytes(StandardCharsets.UTF_8);
    byte[] now = s.compareSet(NodeRendezvousDescriptor.node(rank), new byte[0], me);
    if (!java.util.Arrays.equals(now, me)) {
      throw new DdpException(
          "node rank "
              + rank
              + " is taken by "
              + new String(now, StandardCharsets.UTF_8)
              + " (expected: a distinct --node-rank per launcher, or -1 on all of them for join order)");
    }
    s.set(NodeRendezvousDescriptor.heartbeat(rank), ascii("0"));
    return rank;
  }

  private static void awaitNodes(LaunchConfig c, Store s, int rank) {
    List<String> infos;
    try {
      infos =
          new StoreExchange(s, rank, c.nnodes(), c.rendezvousTimeout())
              .read(
                  NodeRendezvousDescriptor.nodes(),
                  IntStream.range(0, c.nnodes()).toArray(),
                  ExchangeCodec.UTF8);
    } catch (DdpTimeoutException e) {
      List<Integer> missing = e.missingRanks();
      if (missing.isEmpty()) {
        throw e;
      }
      throw new DdpTimeoutException(
          "rendezvous timed out after "
              + c.rendezvousTimeout().toSeconds()
              + " s: "
              + (c.nnodes() - missing.size())
              + " of "
              + c.nnodes()
              + " nodes joined (missing node "
              + StoreExchange.ranksText(missing)
              + "); is "
              + c.store()
              + " reachable from "
              + (missing.size() > 1 ? "them" : "it")
              + "?",
          missing);
    }
    String expected = " nproc=" + c.nprocPerNode();
    for (String info : infos) {
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
}
