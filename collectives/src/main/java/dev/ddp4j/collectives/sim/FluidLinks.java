package dev.ddp4j.collectives.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The messages in flight and the bandwidth each gets: max-min fair sharing of every directed link
 * (progressive filling), each message also capped at one channel's rate. Rates change only when a
 * message starts or finishes, so time advances from one such event to the next.
 */
final class FluidLinks {

  /** A message in flight. */
  static final class Flow {
    final int[] hops;
    final Object owner;
    double remainingBytes;
    double rateBytesPerUs;
    boolean frozen;
    boolean finished;

    Flow(int[] hops, double bytes, Object owner) {
      this.hops = hops;
      this.remainingBytes = bytes;
      this.owner = owner;
    }
  }

  private final double[] capacityBytesPerUs;
  private final double flowCapBytesPerUs;
  private final List<Flow> active = new ArrayList<>();
  private final int[] unfrozenOnLink;
  private final double[] remainingCap;

  FluidLinks(double[] capacityBytesPerUs, double flowCapBytesPerUs) {
    this.capacityBytesPerUs = capacityBytesPerUs;
    this.flowCapBytesPerUs = flowCapBytesPerUs;
    this.unfrozenOnLink = new int[capacityBytesPerUs.length];
    this.remainingCap = new double[capacityBytesPerUs.length];
  }

  void start(Flow f) {
    active.add(f);
    allocate();
  }

  boolean isEmpty() {
    return active.isEmpty();
  }

  /** Time until the next message finishes at current rates, µs (infinite when none). */
  double nextFinishUs() {
    double best = Double.POSITIVE_INFINITY;
    for (Flow f : active) {
      best = Math.min(best, f.remainingBytes / f.rateBytesPerUs);
    }
    return best;
  }

  /** Moves every message on by {@code dtUs}; returns those that finished (and re-shares). */
  List<Flow> advance(double dtUs) {
    List<Flow> done = new ArrayList<>();
    for (Flow f : active) {
      f.remainingBytes -= f.rateBytesPerUs * dtUs;
      if (f.remainingBytes <= 1e-6 * Math.max(1, f.rateBytesPerUs)) {
        f.finished = true;
        done.add(f);
      }
    }
    if (!done.isEmpty()) {
      active.removeIf(f -> f.finished);
      allocate();
    }
    return done;
  }

  /** Progressive filling: raise every unfrozen rate equally until a link or the cap binds. */
  private void allocate() {
    System.arraycopy(capacityBytesPerUs, 0, remainingCap, 0, remainingCap.length);
    java.util.Arrays.fill(unfrozenOnLink, 0);
    List<Flow> unfrozen = new ArrayList<>(active);
    for (Flow f : unfrozen) {
      f.rateBytesPerUs = 0;
      f.frozen = false;
      for (int h : f.hops) {
        unfrozenOnLink[h]++;
      }
    }
    double level = 0;
    while (!unfrozen.isEmpty()) {
      double step = flowCapBytesPerUs - level;
      for (Flow f : unfrozen) {
        for (int h : f.hops) {
          step = Math.min(step, remainingCap[h] / unfrozenOnLink[h]);
        }
      }
      level += step;
      for (Flow f : unfrozen) {
        for (int h : f.hops) {
          remainingCap[h] -= step;
        }
      }
      for (Flow f : unfrozen) {
        boolean bound = level >= flowCapBytesPerUs * (1 - 1e-12);
        for (int h : f.hops) {
          bound |= remainingCap[h] <= capacityBytesPerUs[h] * 1e-12;
        }
        f.frozen = bound;
        f.rateBytesPerUs = level;
      }
      for (Flow f : unfrozen) {
        if (f.frozen) {
          for (int h : f.hops) {
            unfrozenOnLink[h]--;
          }
        }
      }
      unfrozen.removeIf(f -> f.frozen);
    }
  }
}
