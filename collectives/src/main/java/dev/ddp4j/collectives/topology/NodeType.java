package dev.ddp4j.collectives.topology;

/** What a vertex of the topology graph is. Names follow NCCL's node types where one exists. */
public enum NodeType {
  /** A GPU: a device a rank can run on. */
  GPU,
  /** A CPU worker slot on a host without GPUs: a device a rank can run on. */
  CPU_RANK,
  /** An NVSwitch (or the switch fabric of an NVLink domain), seen as one vertex. */
  NVSWITCH,
  /** A PCIe switch or bridge below a host bridge. */
  PCI_SWITCH,
  /** A PCIe host bridge (root complex) inside a CPU socket. */
  HOST_BRIDGE,
  /** A CPU socket / NUMA node; its memory and the socket interconnect start here. */
  CPU,
  /** A network interface. */
  NIC,
  /** The network between hosts, seen as one non-blocking switch. */
  NET;

  /** Whether a rank can run on this vertex. */
  public boolean isRankDevice() {
    return this == GPU || this == CPU_RANK;
  }
}
