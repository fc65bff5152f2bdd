package dev.ddp4j.collectives.topology;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A vertex of the topology graph.
 *
 * @param id index in {@link Topology#nodes()}
 * @param type what it is
 * @param name a stable human name: {@code GPU0}, {@code CPU1}, {@code 0000:17:00.0}, {@code mlx5_0}
 * @param host index of the host it lives on (0 on a single machine; -1 for the network)
 * @param attrs extra attributes kept for files and display (busid, dev, sm, numaid, ...), sorted
 */
public record Node(int id, NodeType type, String name, int host, Map<String, String> attrs) {

  public Node {
    attrs = Collections.unmodifiableMap(new TreeMap<>(attrs));
  }

  /** An attribute, or {@code fallback} when absent. */
  public String attr(String key, String fallback) {
    return attrs.getOrDefault(key, fallback);
  }

  /** An integer attribute, or {@code fallback} when absent or not a number. */
  public int intAttr(String key, int fallback) {
    String v = attrs.get(key);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.decode(v.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
