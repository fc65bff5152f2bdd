package dev.ddp4j.collectives.topology;

/**
 * An undirected physical edge, full duplex: {@code gbps} is available in each direction at once.
 *
 * @param id index in {@link Topology#links()}
 * @param a one end (node id)
 * @param b the other end (node id)
 * @param type the medium
 * @param lanes NVLinks bonded (NVL) or PCIe lanes (PCI); 1 otherwise
 * @param gbps bandwidth per direction in GB/s (10^9 bytes per second)
 * @param latencyUs one-way latency of a small message over this edge, in microseconds
 */
public record Link(int id, int a, int b, LinkType type, int lanes, double gbps, double latencyUs) {

  public Link {
    if (!(gbps > 0)) {
      throw new IllegalArgumentException(
          "link " + a + "-" + b + " gbps : " + gbps + " (expected: > 0)");
    }
  }

  /** The end that is not {@code node}. */
  public int other(int node) {
    return node == a ? b : a;
  }

  /** Directed id: {@code 2*id} for a to b, {@code 2*id+1} for b to a. */
  public int directedFrom(int node) {
    return node == a ? 2 * id : 2 * id + 1;
  }

  /** Short label: {@code NV12}, {@code PCIe x16}, {@code SYS}, {@code NET}. */
  public String label() {
    return switch (type) {
      case NVL -> "NV" + lanes;
      case PCI -> "PCIe x" + lanes;
      default -> type.name();
    };
  }
}
