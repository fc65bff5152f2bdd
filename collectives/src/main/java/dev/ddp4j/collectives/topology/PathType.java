package dev.ddp4j.collectives.topology;

/**
 * How two devices reach each other, the vocabulary of {@code nvidia-smi topo -m}, best first: the
 * same device, NVLink, CPU ranks sharing a socket's memory, then PCIe paths from the shortest (one
 * switch) to the longest (across sockets), then the network.
 */
public enum PathType {
  X("Self"),
  NV("Connection traversing a bonded set of # NVLinks"),
  LOC("Connection between CPU ranks of one NUMA node, through its memory"),
  PIX("Connection traversing at most a single PCIe bridge"),
  PXB("Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"),
  PHB("Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"),
  NODE(
      "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a"
          + " NUMA node"),
  SYS(
      "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g.,"
          + " QPI/UPI)"),
  NET("Connection traversing the network between hosts");

  private final String meaning;

  PathType(String meaning) {
    this.meaning = meaning;
  }

  /** The legend line nvidia-smi prints for this path type. */
  public String meaning() {
    return meaning;
  }

  /** Whether this path crosses PCIe, the socket interconnect or the network (slow for P2P). */
  public boolean isPcieOrWorse() {
    return compareTo(PIX) >= 0;
  }
}
