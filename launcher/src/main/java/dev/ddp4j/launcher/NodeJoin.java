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
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The one node join, of launchers ({@link NodeRendezvous}) and of multi-node doctors: node 0 (or,
 * with {@code --node-rank=-1}, whichever node can bind the store address) hosts the store, the
 * others connect proving the job secret; each node takes a node rank (given, or its join order),
 * publishes {@code node/<rank>} and waits for every rank. The keys are in {@link
 * NodeRendezvousDescriptor}.
 */
public final class NodeJoin {

  /**
   * Who joins and where.
   *
   * @param nnodes nodes of the job
   * @param nodeRank this node's rank, or -1 for join order
   * @param nprocPerNode workers per node, which every node must agree on (-1: one per GPU)
   * @param host this node's host name, which the others name it by
   * @param store where the job's store is
   * @param bindHost where a hosting node binds the store (the store's host, or 0.0.0.0)
   * @param secret the job's store secret
   * @param timeout how long to wait for the store and the other nodes
   * @param storeTimeout the timeout of the store connection returned, when it must differ
   */
  public record Request(
      int nnodes,
      int nodeRank,
      int nprocPerNode,
      String host,
      StoreAddress store,
      String bindHost,
      String secret,
      Duration timeout,
      Duration storeTimeout) {}

  /**
   * What joining produced; the caller owns the server (null where another node hosts the store) and
   * the store, and closes them with {@link #close()}.
   *
   * @param storeHost who hosts the store, for messages: "node 2", "this node, 0"
   * @param hosts every node's host name, by node rank
   */
  public record Joined(
      StoreServer server, Store store, int nodeRank, String storeHost, List<String> hosts)
      implements AutoCloseable {

    @Override
    public void close() {
      store.close();
      if (server != null) {
        server.close();
      }
    }
  }

  /** What a joining node hears as it goes: the launcher logs it, the doctor reports it. */
  public interface Progress {

    /** This node may host but another process holds the port: it joins that one as a client. */
    default void portTaken() {}

    /** This node reached the store as node {@code nodeRank} and waits for the others. */
    void rankTaken(int nodeRank, boolean hosting);

    /** Every node joined. */
    default void allJoined(int nodeRank, boolean hosting) {}
  }

  /**
   * A join that failed, with the step it failed at for a caller that words each case its own way;
   * the message is the launcher's.
   */
  public static final class JoinException extends DdpException {
    private static final long serialVersionUID = 1L;

    /** Where the join stopped. */
    public enum Step {
      /** Node 0 cannot bind the store address. */
      HOST,
      /** The store was not reachable within the timeout. */
      REACH,
      /** The store refused this node (the secret). */
      ADMIT,
      /** No node rank for this node: more nodes than --nnodes, or its rank is taken. */
      RANK,
      /** Not every node joined ({@link #missingNodes()}), or the nodes disagree on nproc. */
      NODES
    }

    private final Step step;
    private final transient List<Integer> missingNodes;

    JoinException(Step step, String message, List<Integer> missingNodes, Throwable cause) {
      super(message, cause);
      this.step = step;
      this.missingNodes = List.copyOf(missingNodes);
    }

    public Step step() {
      return step;
    }

    /** The node ranks that had not joined when the wait ran out (empty for other steps). */
    public List<Integer> missingNodes() {
      return missingNodes;
    }
  }

  /** What a node publishes after its host name: {@code node/R} is "host nproc=N". */
  private static final String NPROC = " nproc=";

  private NodeJoin() {}

  /**
   * Hosts or reaches the store, takes a node rank, waits for every node.
   *
   * @throws JoinException naming the step, and the missing node ranks where some did not come
   */
  public static Joined join(Request r, Progress progress) {
    StoreAddress a = r.store();
    StoreServer server = null;
    Store store = null;
    try {
      if (a.isFile()) {
        store = FileStore.open(a.file(), r.timeout());
      } else {
        server = maybeHost(r, progress);
        store = connect(r, r.timeout());
      }
      int rank = takeRank(r, store);
      if (server != null) {
        store.set(NodeRendezvousDescriptor.storeHost(), ascii(Integer.toString(rank)));
      }
      progress.rankTaken(rank, server != null);
      List<String> hosts = awaitNodes(r, store, rank);
      String storeHost =
          a.isFile()
              ? "none: a file store"
              : server != null
                  ? "this node, " + rank
                  : "node " + ascii(store.get(NodeRendezvousDescriptor.storeHost(), r.timeout()));
      if (!a.isFile() && !r.storeTimeout().equals(r.timeout())) {
        Store rdzvStore = store;
        store = connect(r, r.storeTimeout());
        rdzvStore.close();
      }
      progress.allJoined(rank, server != null);
      return new Joined(server, store, rank, storeHost, hosts);
    } catch (RuntimeException e) {
      if (store != null) {
        store.close();
      }
      if (server != null) {
        server.close();
      }
      throw e;
    }
  }

  private static StoreServer maybeHost(Request r, Progress progress) {
    if (r.nodeRank() > 0) {
      return null;
    }
    try {
      return StoreServer.start(r.bindHost(), r.store().port(), r.secret());
    } catch (StoreException e) {
      if (r.nodeRank() == 0) {
        throw new JoinException(JoinException.Step.HOST, e.getMessage(), List.of(), e);
      }
      // Join order: whoever can bind the store address hosts it (its address is local there and
      // the port still free); the others are clients. Whoever holds the port must then prove the
      // job secret to them, so a stranger that took it first is refused, not trusted.
      if (isLocal(r.store().host())) {
        progress.portTaken();
      }
      return null;
    }
  }

  private static Store connect(Request r, Duration timeout) {
    StoreAddress a = r.store();
    try {
      return TcpStoreClient.connect(a.host(), a.port(), r.secret(), timeout);
    } catch (DdpTimeoutException e) {
      throw new JoinException(
          JoinException.Step.REACH,
          "rendezvous timed out after "
              + timeout.toSeconds()
              + " s: cannot reach the store at "
              + a
              + " (hosted by node 0's launcher); is "
              + a
              + " reachable from this host, and is node 0 started?",
          List.of(),
          e);
    } catch (DdpException e) {
      throw new JoinException(JoinException.Step.ADMIT, e.getMessage(), List.of(), e);
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

  private static int takeRank(Request r, Store s) {
    long joined = s.add(NodeRendezvousDescriptor.joined(), 1);
    int rank = r.nodeRank() >= 0 ? r.nodeRank() : (int) joined - 1;
    if (joined > r.nnodes() || rank >= r.nnodes()) {
      throw new JoinException(
          JoinException.Step.RANK,
          "more launchers joined than --nnodes="
              + r.nnodes()
              + " (this one is number "
              + joined
              + "); start exactly --nnodes launchers, or use another --master-port for another job",
          List.of(),
          null);
    }
    byte[] me = (r.host() + NPROC + r.nprocPerNode()).getBytes(StandardCharsets.UTF_8);
    byte[] now = s.compareSet(NodeRendezvousDescriptor.node(rank), new byte[0], me);
    if (!java.util.Arrays.equals(now, me)) {
      throw new JoinException(
          JoinException.Step.RANK,
          "node rank "
              + rank
              + " is taken by "
              + new String(now, StandardCharsets.UTF_8)
              + " (expected: a distinct --node-rank per launcher, or -1 on all of them for join order)",
          List.of(),
          null);
    }
    s.set(NodeRendezvousDescriptor.heartbeat(rank), ascii("0"));
    return rank;
  }

  /** Waits for every node; returns their host names by rank. */
  private static List<String> awaitNodes(Request r, Store s, int rank) {
    List<String> infos;
    try {
      infos =
          new StoreExchange(s, rank, r.nnodes(), r.timeout())
              .read(
                  NodeRendezvousDescriptor.nodes(),
                  IntStream.range(0, r.nnodes()).toArray(),
                  ExchangeCodec.UTF8);
    } catch (DdpTimeoutException e) {
      List<Integer> missing = e.missingRanks();
      if (missing.isEmpty()) {
        throw e;
      }
      throw new JoinException(
          JoinException.Step.NODES,
          "rendezvous timed out after "
              + r.timeout().toSeconds()
              + " s: "
              + (r.nnodes() - missing.size())
              + " of "
              + r.nnodes()
              + " nodes joined (missing node rank"
              + (missing.size() > 1 ? "s " : " ")
              + missing.toString().replaceAll("[\\[\\]]", "")
              + "); is "
              + r.store()
              + " reachable from "
              + (missing.size() > 1 ? "them" : "it")
              + "?",
          missing,
          e);
    }
    String expected = NPROC + r.nprocPerNode();
    List<String> hosts = new ArrayList<>();
    for (String info : infos) {
      if (!info.endsWith(expected)) {
        throw new JoinException(
            JoinException.Step.NODES,
            "node "
                + info
                + " runs a different --nproc-per-node than this one ("
                + r.nprocPerNode()
                + "); every node of a job must start the same number of workers",
            List.of(),
            null);
      }
      hosts.add(info.substring(0, info.length() - expected.length()));
    }
    return hosts;
  }

  /** The indexes of {@code keys} not in the store yet: the nodes a wait on them misses. */
  static List<Integer> absent(Store s, List<String> keys) {
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (!s.check(List.of(keys.get(i)))) {
        missing.add(i);
      }
    }
    return missing;
  }
}
