package dev.ddp4j.collectives.cpu;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanAgreement;
import dev.ddp4j.collectives.plan.PlanSummary;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a cpu group gets its plan: {@link PlanAgreement} with each host's CPU worker slots over its
 * NUMA nodes and its NICs as the host's topology, so ranks with different settings fail at creation
 * naming both instead of hanging in a collective.
 *
 * <p>Hosts are what the transport decided ({@code HostLinks.nodes()}): with {@code
 * DDP4J_SHM_DISABLE=1} every rank is its own host, joined through sockets.
 */
final class CpuPlanning {

  private CpuPlanning() {}

  /**
   * Plans for this group and checks that rank 0 planned the same.
   *
   * @param nodeOfRank the host identity of every rank, as the transport saw it
   * @param options what {@link #options} read from the environment
   * @param sysRoot where sysfs is ({@code /sys})
   * @throws CollectiveMismatchException when rank 0's plan differs, naming both digests and the
   *     settings that feed the planner
   */
  static Plan agree(
      Store store,
      String keyPrefix,
      int rank,
      List<String> nodeOfRank,
      PlannerOptions options,
      Path sysRoot,
      Duration timeout,
      DebugLog log) {
    List<Integer> myRanks = new ArrayList<>();
    for (int r = 0; r < nodeOfRank.size(); r++) {
      if (nodeOfRank.get(r).equals(nodeOfRank.get(rank))) {
        myRanks.add(r);
      }
    }
    Plan plan =
        PlanAgreement.agree(
                store,
                keyPrefix,
                rank,
                nodeOfRank,
                () -> TopologyDiscovery.cpuHost(sysRoot, myRanks.size()),
                Integer.toString(myRanks.indexOf(rank)),
                (r, host, published) -> Integer.parseInt(published),
                (t, devices) -> t,
                new PlanAgreement.Request(
                    options,
                    Algorithm.modelled(),
                    Algorithm.chosenOnCpus(nodeOfRank.size()),
                    "DDP4J_ALGO, DDP4J_NCHANNELS, DDP4J_MIN_NCHANNELS and DDP4J_MAX_NCHANNELS"),
                timeout)
            .plan();
    if (options.forced().isPresent()
        && plan.table().stream().anyMatch(p -> p.chosen() != options.forced().get())) {
      log.log(
          DebugLog.Level.WARN,
          "DDP4J_ALGO="
              + options.forced().get().id()
              + " does not apply to these "
              + nodeOfRank.size()
              + " ranks on "
              + hostCount(nodeOfRank)
              + " host(s) (hierarchical needs hosts with equal rank counts, tree 3 or more"
              + " ranks, oneshot and twoshot one host); running "
              + PlanSummary.bySize(plan));
    }
    return plan;
  }

  private static long hostCount(List<String> nodeOfRank) {
    return nodeOfRank.stream().distinct().count();
  }

  /**
   * The planner's options: the forced {@code DDP4J_ALGO} when it names an algorithm of the cpu
   * executor (a GPU-only one, such as {@code ll}, is reported and ignored), at most {@code
   * channels} rings.
   */
  static PlannerOptions options(Optional<Algorithm> forced, int channels, DebugLog log) {
    if (forced.isPresent() && !Algorithm.modelled().contains(forced.get())) {
      log.log(
          DebugLog.Level.WARN,
          "DDP4J_ALGO="
              + forced.get().id()
              + " is not an algorithm of the cpu backend (expected: ring, tree, oneshot, twoshot"
              + " or hierarchical); the planner chooses per size");
      forced = Optional.empty();
    }
    PlannerOptions d = PlannerOptions.defaults(false);
    return new PlannerOptions(forced, 1, channels, d.cost());
  }
}
