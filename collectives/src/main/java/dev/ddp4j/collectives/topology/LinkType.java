package dev.ddp4j.collectives.topology;

/** The physical medium of one edge. */
public enum LinkType {
  /** Inside a CPU: a CPU worker and its socket's memory. */
  LOC,
  /** One or more bonded NVLinks, GPU to GPU or GPU to NVSwitch. */
  NVL,
  /** A PCIe link (its width and generation give the bandwidth). */
  PCI,
  /** The socket interconnect between NUMA nodes (QPI / UPI / Infinity Fabric). */
  SYS,
  /** A network link from a NIC into the network between hosts. */
  NET
}
