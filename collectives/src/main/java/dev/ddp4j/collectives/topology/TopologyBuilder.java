package dev.ddp4j.collectives.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds a {@link Topology} vertex by vertex and edge by edge. Not thread-safe. */
public final class TopologyBuilder {

  private final List<Node> nodes = new ArrayList<>();
  private final List<Link> links = new ArrayList<>();
  private final Map<String, Integer> byKey = new HashMap<>();

  /** Adds a vertex and returns its id. */
  public int node(NodeType type, String name, int host, Map<String, String> attrs) {
    int id = nodes.size();
    nodes.add(new Node(id, type, name, host, attrs));
    byKey.putIfAbsent(host + "/" + name, id);
    return id;
  }

  /** Adds a vertex without attributes. */
  public int node(NodeType type, String name, int host) {
    return node(type, name, host, Map.of());
  }

  /** The id of the vertex with this name on this host, or -1. */
  public int find(int host, String name) {
    return byKey.getOrDefault(host + "/" + name, -1);
  }

  /** The vertex with this id. */
  public Node get(int id) {
    return nodes.get(id);
  }

  /** Number of vertices added so far. */
  public int nodeCount() {
    return nodes.size();
  }

  /** Adds an edge with the default latency of its type. */
  public int link(int a, int b, LinkType type, int lanes, double gbps) {
    return link(a, b, type, lanes, gbps, Bandwidths.latencyUs(type));
  }

  /** Adds an edge. */
  public int link(int a, int b, LinkType type, int lanes, double gbps, double latencyUs) {
    if (a == b || a < 0 || b < 0 || a >= nodes.size() || b >= nodes.size()) {
      throw new IllegalArgumentException(
          "link " + a + "-" + b + " (expected two distinct node ids below " + nodes.size() + ")");
    }
    int id = links.size();
    links.add(new Link(id, a, b, type, lanes, gbps, latencyUs));
    return id;
  }

  /** Copies every vertex and edge of {@code t} in, moved to {@code host}; returns the id offset. */
  public int addAll(Topology t, int host) {
    int offset = nodes.size();
    for (Node n : t.nodes()) {
      node(n.type(), n.name(), n.type() == NodeType.NET ? -1 : host, n.attrs());
    }
    for (Link l : t.links()) {
      link(l.a() + offset, l.b() + offset, l.type(), l.lanes(), l.gbps(), l.latencyUs());
    }
    return offset;
  }

  /** The finished, immutable topology. */
  public Topology build() {
    return new Topology(nodes, links);
  }
}
