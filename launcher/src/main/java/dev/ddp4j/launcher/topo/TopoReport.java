package dev.ddp4j.launcher.topo;

import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.InterHost;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.Prediction;
import dev.ddp4j.collectives.plan.RouteLines;
import dev.ddp4j.collectives.plan.Sizes;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyMatrix;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The human-readable {@code topo} report. */
final class TopoReport {

  /** The sizes every report and the JSON show. */
  static final long[] SIZES = {8, 65536, 1048576, 16777216, 268435456};

  private TopoReport() {}

  static String render(Topology t, Plan plan) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%d %s on %d host%s, topology hash %s%n",
            plan.ranks(),
            t.hasGpus() ? "GPUs" : "CPU ranks",
            t.hostCount(),
            t.hostCount() == 1 ? "" : "s",
            plan.topologyHash().substring(0, 16)));
    if (t.hostCount() == 1) {
      sb.append('\n').append(TopologyMatrix.render(t, t.deviceCount())).append('\n');
    }
    if (t.hasGpus()) {
      // Only GPUs have an order to apply (CUDA_VISIBLE_DEVICES); CPU ranks are all alike.
      sb.append("GPU order (rank -> device): ")
          .append(
              Arrays.stream(plan.devices())
                  .mapToObj(t::deviceLabel)
                  .collect(Collectors.joining(" ")))
          .append("\n\n");
    }
    sb.append("Ring channels (").append(plan.rings().size()).append("):\n");
    List<String> lines = RouteLines.of(t, plan);
    lines.forEach(l -> sb.append(l).append('\n'));
    sb.append(bottleneck(t, plan)).append('\n');
    if (!plan.islands().isEmpty()) {
      sb.append("Islands for the hierarchical algorithm: ")
          .append(plan.islands().stream().map(Arrays::toString).collect(Collectors.joining(" ")))
          .append('\n');
      RouteLines.hierarchical(t, plan).forEach(l -> sb.append(l).append('\n'));
    }
    sb.append(
        "\nPredicted all-reduce bus bandwidth, GB/s (NCCL's busbw), and the chosen algorithm's time:\n");
    sb.append(String.format(Locale.ROOT, "%10s", "size"));
    Algorithm[] algos = Algorithm.values();
    for (Algorithm a : algos) {
      sb.append(String.format(Locale.ROOT, " %12s", a.id()));
    }
    sb.append("  chosen\n");
    predictionRows(sb, plan, algos);
    sb.append('\n');
    plan.warnings().forEach(w -> sb.append("WARN ").append(w).append('\n'));
    return sb.toString();
  }

  /**
   * For GPUs on several hosts: which column {@code plan} assumed, and {@code other}'s (the other
   * {@link InterHost}) column lines and prediction per size, since a job runs one or the other
   * depending on NCCL being on every host ({@code DDP4J_INTER_HOST=auto}).
   */
  static String otherInterHost(Topology t, Plan plan, Plan other) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "Between hosts: the plan above runs its hierarchical column via %s (%s); via %s%n"
                + "(%s) it would run:%n",
            plan.interHost().transport(),
            plan.interHost() == InterHost.NCCL
                ? "DDP4J_INTER_HOST=auto or nccl, NCCL on every host"
                : "DDP4J_INTER_HOST=socket",
            other.interHost().transport(),
            other.interHost() == InterHost.NCCL
                ? "DDP4J_INTER_HOST=auto or nccl, NCCL on every host"
                : "DDP4J_INTER_HOST=socket, or auto where some host lacks NCCL"));
    List<String> lines = RouteLines.hierarchical(t, other);
    if (lines.isEmpty()) {
      sb.append("no hierarchical all-reduce (every collective host-staged)\n");
    }
    lines.forEach(l -> sb.append(l).append('\n'));
    sb.append(
        String.format(Locale.ROOT, "%10s %12s %12s  chosen%n", "size", "ring", "hierarchical"));
    predictionRows(sb, other, new Algorithm[] {Algorithm.RING, Algorithm.HIERARCHICAL});
    sb.append('\n');
    return sb.toString();
  }

  /**
   * One row per size: each of {@code algos}' predicted busbw (- where not offered), then the
   * chosen.
   */
  private static void predictionRows(StringBuilder sb, Plan plan, Algorithm[] algos) {
    for (long bytes : SIZES) {
      Prediction p = plan.predictionFor(bytes);
      sb.append(String.format(Locale.ROOT, "%10s", Sizes.human(bytes)));
      for (Algorithm a : algos) {
        sb.append(
            p.timeUs().containsKey(a)
                ? String.format(Locale.ROOT, " %12.2f", p.busBwGbps(a))
                : String.format(Locale.ROOT, " %12s", "-"));
      }
      sb.append(
          String.format(
              Locale.ROOT, "  %s (%.1f us)%n", p.chosen().id(), p.timeUs().get(p.chosen())));
    }
  }

  private static String bottleneck(Topology t, Plan plan) {
    Route slow = null;
    int[] ring = plan.rings().get(0);
    int count = 0;
    for (int i = 0; i < ring.length && ring.length > 1; i++) {
      Route r = t.route(plan.devices()[ring[i]], plan.devices()[ring[(i + 1) % ring.length]]);
      if (slow == null || r.gbps() < slow.gbps()) {
        slow = r;
        count = 0;
      }
      count += r.gbps() == slow.gbps() ? 1 : 0;
    }
    if (slow == null) {
      return "Bottleneck: none (one rank)";
    }
    return String.format(
        Locale.ROOT,
        "Bottleneck: %s -> %s over %s at %s GB/s (%d of %d hops per ring)",
        t.deviceLabel(slow.from()),
        t.deviceLabel(slow.to()),
        slow.label(),
        slow.gbps() >= 10
            ? String.format(Locale.ROOT, "%.0f", slow.gbps())
            : String.format(Locale.ROOT, "%.1f", slow.gbps()),
        count,
        ring.length);
  }
}
