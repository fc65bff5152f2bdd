package dev.ddp4j.collectives.topology;

/**
 * Default bandwidths and latencies, per direction, used where a file or the machine does not say.
 * Values are achievable payload rates, not signalling rates.
 */
public final class Bandwidths {

  /** One PCIe Gen4 x16 link: 16 GT/s * 16 lanes * 128/130 encoding, less ~20% packet overhead. */
  public static final double PCIE_GEN4_X16_GBPS = pcieGbps(16.0, 16);

  /** Socket interconnect (2-3 UPI links or Infinity Fabric), per direction. */
  public static final double SYS_GBPS = 20.0;

  /** Inside a host bridge: root ports to the CPU's mesh. */
  public static final double HOST_BRIDGE_GBPS = 64.0;

  /** A 100 Gb/s NIC. */
  public static final double NIC_100G_GBPS = 12.5;

  /**
   * A GPU pair without peer access, staged through pinned host memory and the cpu backend: 5.7 GB/s
   * busbw at 128-512 MiB on 2 x H200 (bench/cuda-allreduce-h200.md, host-staged path).
   */
  public static final double HOST_STAGED_GBPS = 5.7;

  /** A CPU worker copying through its socket's memory. */
  public static final double LOC_GBPS = 12.0;

  public static final double NVL_LATENCY_US = 0.7;
  public static final double PCI_LATENCY_US = 1.0;
  public static final double SYS_LATENCY_US = 1.5;
  public static final double NET_LATENCY_US = 5.0;
  public static final double LOC_LATENCY_US = 0.3;

  private Bandwidths() {}

  /**
   * Payload GB/s of one PCIe link per direction.
   *
   * @param gtPerS transfer rate per lane (2.5, 5, 8, 16, 32, 64)
   * @param width lanes
   */
  public static double pcieGbps(double gtPerS, int width) {
    double encoding = gtPerS <= 5.0 ? 0.8 : 128.0 / 130.0;
    return gtPerS * width * encoding / 8.0 * 0.8;
  }

  /** GB/s per direction of one NVLink of a GPU with this compute capability (e.g. 80, 90). */
  public static double nvlinkGbpsPerLink(int sm) {
    if (sm >= 100) {
      return 50.0;
    }
    if (sm == 86) {
      return 14.0;
    }
    if (sm >= 70) {
      return 25.0;
    }
    return 20.0;
  }

  /** Latency of one edge of this type, in microseconds. */
  public static double latencyUs(LinkType type) {
    return switch (type) {
      case LOC -> LOC_LATENCY_US;
      case NVL -> NVL_LATENCY_US;
      case PCI -> PCI_LATENCY_US;
      case SYS -> SYS_LATENCY_US;
      case NET -> NET_LATENCY_US;
    };
  }
}
