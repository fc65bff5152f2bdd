package dev.ddp4j.collectives.cuda;

import java.util.Locale;

/** The all-reduce kernels there are; {@code DDP4J_ALGO} names one to force it. */
public enum AllReduceAlgorithm {
  /**
   * Every rank pushes its whole input to every peer and reduces all inputs locally: one NVLink hop
   * of latency, (n-1) x the bytes on each GPU's links; on 2 GPUs that is the least possible
   * traffic.
   */
  ONESHOT("oneshot"),
  /**
   * Reduce-scatter then all-gather, both by pushes: two hops, 2(n-1)/n x the bytes on each GPU's
   * links; the choice for large messages on more than 2 GPUs.
   */
  TWOSHOT("twoshot"),
  /**
   * One-shot with the copy engines moving the data: the host queues, on an internal stream, copies
   * of the input into every peer's slot in chunks, each chunk followed by a stream write of its
   * flag into the peers' memory; a kernel reduces each chunk as its flags arrive. For large
   * messages, where the copy engines reach the link's bandwidth with no SMs spent on moving data.
   */
  COPY_ENGINE("cereduce"),
  /**
   * Low-latency one-shot for small messages (at most 256 KiB a launch): data travels in 8-byte
   * words that carry their own flag, so there is no fence and no separate flag write; twice the
   * bytes on the links.
   */
  LL("ll"),
  /**
   * Reduce-scatter then all-gather around a ring, 2(n-1) steps, each rank pushing only to its ring
   * successor: 2(n-1)/n x the bytes on each GPU's links, like two-shot, but 2(n-1) hops of latency
   * instead of 2, and only the ring's pairs need peer access. The group runs it when some pairs
   * lack a peer path (the route {@code GpuPlanning.route} names {@code ring}); {@code
   * DDP4J_ALGO=ring} forces it elsewhere.
   */
  RING("ring");

  private final String kernelPrefix;

  AllReduceAlgorithm(String kernelPrefix) {
    this.kernelPrefix = kernelPrefix;
  }

  String kernelPrefix() {
    return kernelPrefix;
  }

  /**
   * Parses {@code ll}, {@code oneshot}, {@code twoshot}, {@code copyengine} ({@code ce}) or {@code
   * ring}, case-insensitively.
   *
   * @throws IllegalArgumentException naming the value and the accepted ones
   */
  public static AllReduceAlgorithm parse(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT).replace("-", "");
    if (n.equals("copyengine") || n.equals("ce")) {
      return COPY_ENGINE;
    }
    for (AllReduceAlgorithm a : values()) {
      if (a.kernelPrefix.equals(n) && a != COPY_ENGINE) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "DDP4J_ALGO='"
            + name
            + "' is not a cuda all-reduce algorithm (expected: ll, oneshot, twoshot, copyengine, ring)");
  }
}
