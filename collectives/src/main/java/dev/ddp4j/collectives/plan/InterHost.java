package dev.ddp4j.collectives.plan;

/**
 * How a GPU plan's inter-host phase (the hierarchical all-reduce's column, 1/k of the data after
 * the reduce-scatter inside each host) crosses the network: through NCCL, whose communicator moves
 * device memory over the NIC itself (GPUDirect RDMA where the fabric has it), or through pinned
 * host memory and the cpu backend's TCP sockets. The planner charges the column's hops accordingly
 * ({@link CostModel#hierarchicalUs}); route lines name it ({@link #transport}).
 */
public enum InterHost {
  /** One NCCL communicator per column, device buffers in place: bounded by the NIC. */
  NCCL("NET/NCCL"),
  /** Device -> pinned host memory -> cpu backend sockets -> device: bounded by the staging too. */
  SOCKET("NET/socket");

  private final String transport;

  InterHost(String transport) {
    this.transport = transport;
  }

  /** The route lines' transport: {@code NET/NCCL} or {@code NET/socket}. */
  public String transport() {
    return transport;
  }

  /** {@code nccl} or {@code socket}, as {@code DDP4J_INTER_HOST} spells it. */
  public String id() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The other one (what {@code topo} also predicts). */
  public InterHost other() {
    return this == NCCL ? SOCKET : NCCL;
  }
}
