package dev.ddp4j.collectives.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The machine (or the job's machines) as an immutable weighted graph: GPUs, CPU worker slots,
 * NVSwitches, PCIe switches, host bridges, CPUs, NICs and the network, joined by full-duplex links
 * with a bandwidth per direction and a latency.
 *
 * <p>Rank devices (GPUs, or CPU worker slots on hosts without GPUs) are numbered 0..n-1 by host,
 * then CUDA ordinal ({@code dev} attribute), then vertex id; that number is the device index every
 * planner API uses. {@link #route(int, int)} gives the route data takes between two devices.
 */
public final class Topology {

  private final List<Node> nodes;
  private final List<Link> links;
  private final int[][] adjacency;
  private final int[] devices;
  private final int hosts;
  private final ConcurrentHashMap<Integer, Route[]> routesBySource = new ConcurrentHashMap<>();

  Topology(List<Node> nodes, List<Link> links) {
    this.nodes = List.copyOf(nodes);
    this.links = List.copyOf(links);
    int[] degree = new int[nodes.size()];
    for (Link l : links) {
      degree[l.a()]++;
      degree[l.b()]++;
    }
    adjacency = new int[nodes.size()][];
    for (int i = 0; i < nodes.size(); i++) {
      adjacency[i] = new int[degree[i]];
      degree[i] = 0;
    }
    for (Link l : links) {
      adjacency[l.a()][degree[l.a()]++] = l.id();
      adjacency[l.b()][degree[l.b()]++] = l.id();
    }
    List<Node> devs = new ArrayList<>();
    int maxHost = 0;
    for (Node n : nodes) {
      maxHost = Math.max(maxHost, n.host());
      if (n.type().isRankDevice()) {
        devs.add(n);
      }
    }
    devs.sort(
        Comparator.comparingInt(Node::host)
            .thenComparingInt(n -> n.intAttr("dev", Integer.MAX_VALUE))
            .thenComparingInt(Node::id));
    devices = devs.stream().mapToInt(Node::id).toArray();
    hosts = maxHost + 1;
  }

  public List<Node> nodes() {
    return nodes;
  }

  public List<Link> links() {
    return links;
  }

  public Node node(int id) {
    return nodes.get(id);
  }

  public Link link(int id) {
    return links.get(id);
  }

  /** Link ids touching this vertex. */
  public int[] linksOf(int nodeId) {
    return adjacency[nodeId];
  }

  /** Number of rank devices. */
  public int deviceCount() {
    return devices.length;
  }

  /** The vertex of rank device {@code index}. */
  public Node device(int index) {
    return nodes.get(devices[index]);
  }

  /** Rank devices in device-index order. */
  public List<Node> devices() {
    List<Node> out = new ArrayList<>(devices.length);
    for (int id : devices) {
      out.add(nodes.get(id));
    }
    return out;
  }

  /** Whether the rank devices are GPUs (false: CPU worker slots). */
  public boolean hasGpus() {
    return devices.length > 0 && device(0).type() == NodeType.GPU;
  }

  /** Number of hosts. */
  public int hostCount() {
    return hosts;
  }

  /** Host of device {@code index}. */
  public int hostOf(int index) {
    return device(index).host();
  }

  /** The route from device {@code from} to device {@code to}, computed once and cached. */
  public Route route(int from, int to) {
    Route[] row = routesBySource.computeIfAbsent(from, f -> Routes.fromDevice(this, f, devices));
    return row[to];
  }

  /**
   * Whether GPU {@code from} may write into GPU {@code to}'s memory (CUDA peer access): both on one
   * host, and {@code to}'s {@code dev} listed in {@code from}'s {@code p2p} attribute where it has
   * one (what the driver answered, or what {@link #withPeerAccess} set). CPU ranks and a device
   * with itself: always.
   */
  public boolean peerAccess(int from, int to) {
    if (from == to || !hasGpus()) {
      return true;
    }
    if (hostOf(from) != hostOf(to)) {
      return false;
    }
    String p2p = device(from).attr("p2p", null);
    if (p2p == null) {
      return true;
    }
    String peer = device(to).attr("dev", Integer.toString(to));
    for (String d : p2p.split(",")) {
      if (d.trim().equals(peer)) {
        return true;
      }
    }
    return false;
  }

  /**
   * This topology with each GPU's {@code p2p} attribute set from {@code access[i][j]} (device i may
   * access device j; a null row leaves device i as it is): how a group's peer-access answers and
   * {@code DDP4J_P2P_DISABLE_PAIRS} reach the planner.
   */
  public Topology withPeerAccess(boolean[][] access) {
    List<Node> out = new ArrayList<>(nodes);
    for (int i = 0; i < devices.length; i++) {
      if (access[i] == null) {
        continue;
      }
      List<String> peers = new ArrayList<>();
      for (int j = 0; j < devices.length; j++) {
        // Device labels repeat on every host: only this host's peers may go in the list.
        if (j != i && access[i][j] && hostOf(j) == hostOf(i)) {
          peers.add(device(j).attr("dev", Integer.toString(j)));
        }
      }
      Node n = device(i);
      java.util.Map<String, String> attrs = new java.util.TreeMap<>(n.attrs());
      attrs.put("p2p", String.join(",", peers));
      out.set(n.id(), new Node(n.id(), n.type(), n.name(), n.host(), attrs));
    }
    return new Topology(out, links);
  }

  /** The display label of a device: {@code GPU3}, or {@code h1:GPU3} on a multi-host topology. */
  public String deviceLabel(int index) {
    Node n = device(index);
    return hosts > 1 ? "h" + n.host() + ":" + n.name() : n.name();
  }

  /** A short summary for logs: devices, hosts, vertex and link counts. */
  @Override
  public String toString() {
    return "Topology{devices="
        + devices.length
        + ", hosts="
        + hosts
        + ", nodes="
        + nodes.size()
        + ", links="
        + links.size()
        + "}";
  }
}
