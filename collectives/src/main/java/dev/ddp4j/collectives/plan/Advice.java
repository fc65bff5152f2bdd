package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The warnings a plan carries: each says what is slow and what fixes it. */
final class Advice {

  private Advice() {}

  static List<String> warnings(Topology t, Plan plan, PlannerOptions o) {
    List<String> out = new ArrayList<>();
    slowHopInEveryRing(t, plan).ifPresent(out::add);
    hierarchicalGain(plan).ifPresent(out::add);
    int[] d = plan.devices();
    boolean identity = true;
    for (int i = 0; i < d.length; i++) {
      identity &= d[i] == i;
    }
    if (!identity && t.hasGpus()) {
      String order =
          Arrays.stream(d)
              .mapToObj(i -> t.device(i).attr("dev", Integer.toString(i)))
              .collect(Collectors.joining(","));
      out.add(
          "ranks will use GPU order "
              + order
              + " (local rank i -> GPU order[i], as CUDA_VISIBLE_DEVICES="
              + order
              + ") so that neighbouring ranks share the fastest links");
    }
    if (o.forced().isPresent() && !plan.table().get(0).timeUs().containsKey(o.forced().get())) {
      out.add(
          "DDP4J_ALGO="
              + o.forced().get().id()
              + " does not apply to these ranks (no equal islands, or no direct P2P between every"
              + " pair); choosing per size instead: unset DDP4J_ALGO");
    }
    return out;
  }

  /** A hop slower than the best link between ranks that every ring channel must take. */
  private static java.util.Optional<String> slowHopInEveryRing(Topology t, Plan plan) {
    double fastest = 0;
    int n = plan.ranks();
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        if (a != b) {
          fastest = Math.max(fastest, t.route(plan.devices()[a], plan.devices()[b]).gbps());
        }
      }
    }
    for (int c = 0; c < plan.rings().size(); c++) {
      int[] ring = plan.rings().get(c);
      boolean slowInAll = true;
      Route slow = null;
      for (int[] other : plan.rings()) {
        Route s = slowest(t, plan, other);
        slowInAll &= s != null && s.type().isPcieOrWorse() && s.gbps() * 2 <= fastest;
        if (other == ring) {
          slow = s;
        }
      }
      if (slowInAll && slow != null) {
        Prediction big = plan.predictionFor(1L << 28);
        String fix =
            big.timeUs().containsKey(Algorithm.HIERARCHICAL)
                ? "the hierarchical schedule keeps most traffic on the fast links (see below)"
                : "connect these GPUs by NVLink, or place ranks on GPUs that are (CUDA_VISIBLE_DEVICES)";
        return java.util.Optional.of(
            String.format(
                Locale.ROOT,
                "%s -> %s crosses %s (%s GB/s) in every ring, while the fastest pair has %s GB/s: %s",
                t.deviceLabel(plan.devices()[ringOwner(plan, slow.from())]),
                t.deviceLabel(plan.devices()[ringOwner(plan, slow.to())]),
                slow.type() == PathType.NET ? "the network" : "PCIe (" + slow.label() + ")",
                RouteLines.gbps(slow.gbps()),
                RouteLines.gbps(fastest),
                fix));
      }
      break;
    }
    return java.util.Optional.empty();
  }

  /** Maps a device index back to its rank. */
  private static int ringOwner(Plan plan, int device) {
    for (int r = 0; r < plan.ranks(); r++) {
      if (plan.devices()[r] == device) {
        return r;
      }
    }
    return device;
  }

  private static Route slowest(Topology t, Plan plan, int[] ring) {
    Route slow = null;
    for (int i = 0; i < ring.length && ring.length > 1; i++) {
      Route r = t.route(plan.devices()[ring[i]], plan.devices()[ring[(i + 1) % ring.length]]);
      if (slow == null || r.gbps() < slow.gbps()) {
        slow = r;
      }
    }
    return slow;
  }

  private static java.util.Optional<String> hierarchicalGain(Plan plan) {
    Prediction first = null;
    Prediction last = null;
    double best = 0;
    long bestBytes = 0;
    for (Prediction p : plan.table()) {
      if (p.chosen() == Algorithm.HIERARCHICAL) {
        first = first == null ? p : first;
        last = p;
        double ratio = p.timeUs().get(Algorithm.RING) / p.timeUs().get(Algorithm.HIERARCHICAL);
        if (ratio > best) {
          best = ratio;
          bestBytes = p.bytes();
        }
      }
    }
    if (first == null) {
      return java.util.Optional.empty();
    }
    boolean toTheEnd = last == plan.table().get(plan.table().size() - 1);
    return java.util.Optional.of(
        String.format(
            Locale.ROOT,
            "the hierarchical schedule (%d islands of %d) is predicted %.1fx faster than the flat"
                + " ring at %s%s and is used %s; DDP4J_ALGO=ring forces the ring",
            plan.islands().size(),
            plan.islands().get(0).length,
            last.timeUs().get(Algorithm.RING) / last.timeUs().get(Algorithm.HIERARCHICAL),
            Sizes.human(last.bytes()),
            bestBytes == last.bytes()
                ? ""
                : String.format(Locale.ROOT, " (%.1fx at %s)", best, Sizes.human(bestBytes)),
            toTheEnd
                ? "from " + Sizes.human(first.bytes())
                : "from " + Sizes.human(first.bytes()) + " to " + Sizes.human(last.bytes())));
  }
}
