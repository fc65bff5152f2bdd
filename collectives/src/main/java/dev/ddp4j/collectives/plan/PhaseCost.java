package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;

/**
 * One phase of an algorithm: a set of flows that run at the same time, repeated {@code steps}
 * times. A step lasts as long as its most loaded directed link needs (bytes of every flow crossing
 * it, over its bandwidth), or its largest flow at one channel's rate, plus the longest route's
 * latency, the step overhead and the time to reduce what was received.
 */
final class PhaseCost {

  private final Topology t;
  private final int[] devices;
  private final CostParams params;
  private final double[] linkBytes;
  private double maxFlowBytes;
  private double maxLatencyUs;
  private double reduceBytes;
  private int channelsPerFlow = 1;

  PhaseCost(Topology t, int[] devices, CostParams params) {
    this.t = t;
    this.devices = devices;
    this.params = params;
    this.linkBytes = new double[2 * t.links().size()];
  }

  /** Rank {@code from} sends {@code bytes} to rank {@code to} in every step of the phase. */
  PhaseCost flow(int from, int to, double bytes) {
    Route r = t.route(devices[from], devices[to]);
    for (int h : r.hops()) {
      linkBytes[h] += bytes;
    }
    maxFlowBytes = Math.max(maxFlowBytes, bytes);
    maxLatencyUs = Math.max(maxLatencyUs, r.latencyUs());
    return this;
  }

  /** Spreads every flow over {@code c} channels, each capped at the channel rate. */
  PhaseCost channels(int c) {
    channelsPerFlow = c;
    return this;
  }

  /** Bytes the busiest rank reduces per step. */
  PhaseCost reduce(double bytes) {
    reduceBytes = Math.max(reduceBytes, bytes);
    return this;
  }

  /** Duration of one step, µs. */
  double stepUs() {
    double transferUs = maxFlowBytes / channelsPerFlow / (params.channelGbps() * 1e3);
    for (int h = 0; h < linkBytes.length; h++) {
      if (linkBytes[h] > 0) {
        transferUs = Math.max(transferUs, linkBytes[h] / (t.link(h >> 1).gbps() * 1e3));
      }
    }
    return transferUs
        + maxLatencyUs
        + params.stepOverheadUs()
        + reduceBytes / (params.reduceGbps() * 1e3);
  }

  /** The directed link with the most time per step, or -1 when nothing flows. */
  int bottleneckLink() {
    int best = -1;
    double bestUs = 0;
    for (int h = 0; h < linkBytes.length; h++) {
      double us = linkBytes[h] / (t.link(h >> 1).gbps() * 1e3);
      if (us > bestUs) {
        bestUs = us;
        best = h;
      }
    }
    return best;
  }
}
