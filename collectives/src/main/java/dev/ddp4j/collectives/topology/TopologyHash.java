package dev.ddp4j.collectives.topology;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A canonical text of a topology and its SHA-256, so every rank can check through the store that it
 * plans over the same graph as rank 0. Only what the planner reads is hashed: vertex types, names
 * and hosts, links with type, lanes, bandwidth and latency, in id order.
 */
public final class TopologyHash {

  private TopologyHash() {}

  /** One line per vertex and per link; equal texts give equal plans. */
  public static String canonical(Topology t) {
    StringBuilder sb = new StringBuilder("ddp4j-topology 1\n");
    for (Node n : t.nodes()) {
      sb.append("n ")
          .append(n.id())
          .append(' ')
          .append(n.type())
          .append(' ')
          .append(n.host())
          .append(' ')
          .append(n.name())
          .append(" dev=")
          .append(n.attr("dev", "-"))
          .append('\n');
    }
    for (Link l : t.links()) {
      // Milli-units as integers: the same text on every JVM, and no Formatter on the startup path.
      sb.append("l ")
          .append(l.id())
          .append(' ')
          .append(l.a())
          .append(' ')
          .append(l.b())
          .append(' ')
          .append(l.type())
          .append(' ')
          .append(l.lanes())
          .append(' ')
          .append(Math.round(l.gbps() * 1000))
          .append(' ')
          .append(Math.round(l.latencyUs() * 1000))
          .append('\n');
    }
    return sb.toString();
  }

  /** Hex SHA-256 of {@link #canonical}. */
  public static String sha256(Topology t) {
    return sha256(canonical(t));
  }

  /** Hex SHA-256 of {@code text} in UTF-8: how topologies and plans are compared between ranks. */
  public static String sha256(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
