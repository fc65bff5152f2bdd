package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanDigest;
import dev.ddp4j.collectives.plan.PlanSummary;
import dev.ddp4j.collectives.plan.RouteLines;
import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * What a cuda rank logs of its plan with {@code DDP4J_DEBUG=INFO}, in NCCL's form and with the very
 * lines {@code launcher.jar topo} prints for the same topology ({@link RouteLines}): its hop on
 * every ring channel, the algorithm by size, and how the group runs; WARN lines for the plan's
 * advice (rank 0) and for a group that must stage through the host.
 */
final class RouteLog {

  private RouteLog() {}

  /** The INFO lines of {@code rank}. */
  static List<String> infoLines(Topology t, Plan plan, int rank, String route, int residentCap) {
    List<String> out = new ArrayList<>(RouteLines.ofRank(t, plan, rank));
    out.addAll(RouteLines.hierarchicalOfRank(t, plan, rank));
    out.add("all-reduce by size: " + PlanSummary.bySize(plan));
    out.add(
        "cuda route: "
            + route
            + "; channels: "
            + plan.rings().size()
            + " ring, "
            + plan.wideChannels()
            + " wide (at most "
            + residentCap
            + " keep every rank's blocks resident on its GPU); plan "
            + PlanDigest.sha256(plan).substring(0, 12));
    return out;
  }

  /**
   * The INFO lines of a group on several hosts: how its column crosses them and why, or why it runs
   * no hierarchy (and so is host-staged throughout).
   *
   * @param why the {@link InterHostChoice.Decision}'s reason
   */
  static List<String> betweenHostsLines(Topology t, Plan plan, String why) {
    java.util.Optional<String> none = GpuPlanning.whyNoHostHierarchy(t, plan);
    if (none.isPresent()) {
      return List.of(
          "between hosts: no hierarchical all-reduce, every collective host-staged: " + none.get());
    }
    return List.of(
        "between hosts: hierarchical from "
            + dev.ddp4j.collectives.plan.Sizes.human(
                plan.smallestBytesOf(dev.ddp4j.collectives.plan.Algorithm.HIERARCHICAL))
            + ", the hosts as islands, the column via "
            + plan.interHost().transport()
            + " ("
            + why
            + ")");
  }

  static void logBetweenHosts(Topology t, Plan plan, DebugLog log, String why) {
    if (log.enabled(DebugLog.Level.INFO)) {
      betweenHostsLines(t, plan, why).forEach(l -> log.log(DebugLog.Level.INFO, l));
    }
  }

  static void log(
      Topology t,
      Plan plan,
      DebugLog log,
      int rank,
      String route,
      int residentCap,
      PeerRouting routing) {
    if (log.enabled(DebugLog.Level.INFO)) {
      infoLines(t, plan, rank, route, residentCap).forEach(l -> log.log(DebugLog.Level.INFO, l));
    }
    if (rank == 0) {
      plan.warnings().forEach(w -> log.log(DebugLog.Level.WARN, w));
    }
    PeerRouting.Hop first = routing.firstStaged();
    int[] ring = plan.rings().get(0);
    for (int i = 0; i < ring.length && route.contains("via host memory"); i++) {
      PeerRouting.Hop h = routing.pairwise(ring[i], ring[(i + 1) % ring.length]);
      if (h.from() == rank && h.transport() != PeerRouting.Transport.P2P_IPC) {
        log.log(
            DebugLog.Level.WARN,
            "ring hop "
                + h.from()
                + "->"
                + h.to()
                + " goes through host memory over PCIe: the ranks have no peer path ("
                + h.reason()
                + ")");
      }
    }
    if (route.equals("staged") && first != null) {
      log.log(
          DebugLog.Level.WARN,
          "the whole group is host-staged: ranks "
              + first.from()
              + " and "
              + first.to()
              + " have no peer path ("
              + first.reason()
              + ") and the plan's ring cannot avoid every such pair");
    }
  }
}
