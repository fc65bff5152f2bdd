package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Bandwidths;
import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;

/**
 * One step of an algorithm, repeated: the flows that run at the same time. A step lasts as long as
 * the slowest of: its most loaded directed link (bytes of every flow crossing it, over its
 * bandwidth), and the busiest rank's sends through its channels (each channel moves at most {@link
 * CostParams#channelGbps}); plus the longest route's latency, a step overhead per message the
 * busiest rank receives on one channel, and the time to reduce what it received.
 */
final class PhaseCost {

  private final Topology t;
  private final int[] devices;
  private final CostParams params;
  private final double[] linkBytes;
  private final double[] sendBytes;
  private final double[] stagedBytes;
  private double maxLatencyUs;
  private double stagedUs;
  private double reduceBytes;
  private int channels = 1;
  private int receivesPerChannel = 1;
  private double overheadUs;
  private boolean netStaged = true;

  PhaseCost(Topology t, int[] devices, CostParams params) {
    this.t = t;
    this.devices = devices;
    this.params = params;
    this.linkBytes = new double[2 * t.links().size()];
    this.sendBytes = new double[devices.length];
    this.stagedBytes = new double[devices.length];
    this.overheadUs = params.stepOverheadUs();
  }

  /** The overhead per received message, where it differs from the executor's step overhead. */
  PhaseCost overheadUs(double us) {
    overheadUs = us;
    return this;
  }

  /**
   * Whether hops between hosts go through pinned host memory (the cuda group's sockets; the
   * default) or not (NCCL moves device memory over the NIC itself). Set before the flows.
   */
  PhaseCost netStaged(boolean staged) {
    netStaged = staged;
    return this;
  }

  /** Rank {@code from} sends {@code bytes} to rank {@code to} in every step. */
  PhaseCost flow(int from, int to, double bytes) {
    Route r = t.route(devices[from], devices[to]);
    for (int h : r.hops()) {
      linkBytes[h] += bytes;
    }
    sendBytes[from] += bytes;
    boolean net = r.type() == PathType.NET;
    // GPUs between hosts: through pinned host memory unless NCCL moves device memory itself (CPU
    // ranks send from host memory anyway).
    boolean staged = net ? t.hasGpus() && netStaged : !t.peerAccess(devices[from], devices[to]);
    if (staged) {
      // No peer access: the hop goes through pinned host memory at the staged rate, which one
      // rank's copy streams and staging threads share among all its staged flows.
      stagedBytes[from] += bytes;
      stagedUs = Math.max(stagedUs, stagedBytes[from] / (Bandwidths.HOST_STAGED_GBPS * 1e3));
    }
    maxLatencyUs = Math.max(maxLatencyUs, r.latencyUs());
    return this;
  }

  /** The channels the flows of each rank are spread over (they run in parallel). */
  PhaseCost channels(int c) {
    channels = c;
    return this;
  }

  /** Messages one channel of the busiest rank receives per step (each costs the overhead). */
  PhaseCost receives(int perChannel) {
    receivesPerChannel = perChannel;
    return this;
  }

  /** Bytes the busiest rank reduces per step. */
  PhaseCost reduce(double bytes) {
    reduceBytes = Math.max(reduceBytes, bytes);
    return this;
  }

  /** Duration of one step, µs. */
  double stepUs() {
    return transferUs()
        + maxLatencyUs
        + receivesPerChannel * overheadUs
        + reduceBytes / (params.reduceGbps() * 1e3);
  }

  /** The bytes' part of {@link #stepUs}: the busiest link, channel or staging copy, µs. */
  double transferUs() {
    double transferUs = stagedUs;
    for (double bytes : sendBytes) {
      transferUs = Math.max(transferUs, bytes / channels / (params.channelGbps() * 1e3));
    }
    for (int h = 0; h < linkBytes.length; h++) {
      if (linkBytes[h] > 0) {
        transferUs = Math.max(transferUs, linkBytes[h] / (t.link(h >> 1).gbps() * 1e3));
      }
    }
    return transferUs;
  }
}
