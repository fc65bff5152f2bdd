package dev.ddp4j.collectives.cpu;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanDigest;
import dev.ddp4j.collectives.plan.PlanSummary;
import dev.ddp4j.collectives.plan.Planner;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.NcclTopoXmlWriter;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a cpu group gets its plan, as ARCHITECTURE.md's data path has it: the lowest rank of each
 * host publishes that host (its CPU worker slots over the NUMA nodes, its NICs) as NCCL topology
 * XML through the store; every rank joins the hosts in the order of their lowest rank, runs the
 * deterministic {@link Planner} over them, and checks its plan's SHA-256 against rank 0's, so ranks
 * with different settings fail at creation naming both instead of hanging in a collective.
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
    Map<String, List<Integer>> hosts = new LinkedHashMap<>(); // in order of lowest rank
    for (int r = 0; r < nodeOfRank.size(); r++) {
      hosts.computeIfAbsent(nodeOfRank.get(r), k -> new ArrayList<>()).add(r);
    }
    List<String> hostNames = List.copyOf(hosts.keySet());
    int myHost = hostNames.indexOf(nodeOfRank.get(rank));
    List<Integer> myRanks = hosts.get(nodeOfRank.get(rank));
    if (myRanks.get(0) == rank) {
      Topology mine = TopologyDiscovery.cpuHost(sysRoot, myRanks.size());
      store.set(
          keyPrefix + "plan/host/" + myHost,
          NcclTopoXmlWriter.write(mine).getBytes(StandardCharsets.UTF_8));
    }
    List<Topology> perHost = new ArrayList<>();
    int[] firstDevice = new int[hostNames.size()];
    int devicesSoFar = 0;
    for (int h = 0; h < hostNames.size(); h++) {
      byte[] xml = store.get(keyPrefix + "plan/host/" + h, timeout);
      Topology t = NcclTopoXmlReader.parse(new String(xml, StandardCharsets.UTF_8));
      perHost.add(t);
      firstDevice[h] = devicesSoFar;
      devicesSoFar += t.deviceCount();
    }
    Topology job = perHost.size() == 1 ? perHost.get(0) : MultiHost.join(perHost);
    int[] devices = new int[nodeOfRank.size()];
    for (int h = 0; h < hostNames.size(); h++) {
      List<Integer> ranks = hosts.get(hostNames.get(h));
      for (int i = 0; i < ranks.size(); i++) {
        devices[ranks.get(i)] = firstDevice[h] + i;
      }
    }
    Plan plan = Planner.plan(job, devices, options, Algorithm.chosenOnCpus(nodeOfRank.size()));
    if (options.forced().isPresent()
        && plan.table().stream().anyMatch(p -> p.chosen() != options.forced().get())) {
      log.log(
          DebugLog.Level.WARN,
          "DDP4J_ALGO="
              + options.forced().get().id()
              + " does not apply to these "
              + devices.length
              + " ranks on "
              + hostNames.size()
              + " host(s) (hierarchical needs hosts with equal rank counts, tree 3 or more"
              + " ranks, oneshot and twoshot one host); running "
              + PlanSummary.bySize(plan));
    }
    String digest = PlanDigest.sha256(plan);
    store.set(keyPrefix + "plan/digest/" + rank, digest.getBytes(StandardCharsets.UTF_8));
    // Rank 0 checks every rank, every other rank checks rank 0: each side of a mismatch fails here.
    for (int other = 0; other < nodeOfRank.size(); other++) {
      if (other != rank && (rank == 0 || other == 0)) {
        byte[] theirs = store.get(keyPrefix + "plan/digest/" + other, timeout);
        String digestOfOther = new String(theirs, StandardCharsets.UTF_8);
        if (!digestOfOther.equals(digest)) {
          throw mismatch(rank, digest, other, digestOfOther);
        }
      }
    }
    return plan;
  }

  private static CollectiveMismatchException mismatch(
      int rank, String digest, int other, String digestOfOther) {
    return new CollectiveMismatchException(
        "rank "
            + rank
            + " planned "
            + digest.substring(0, 12)
            + " but rank "
            + other
            + " planned "
            + digestOfOther.substring(0, 12)
            + " for the same group: give every rank the same DDP4J_ALGO, DDP4J_NCHANNELS,"
            + " DDP4J_MIN_NCHANNELS and DDP4J_MAX_NCHANNELS");
  }

  /**
   * The planner's options: {@code DDP4J_ALGO} when it names a planner algorithm (other values, such
   * as the cuda backend's {@code ll}, are reported and ignored: the host-staged path of a cuda
   * group runs on a cpu group with the same environment), at most {@code channels} rings.
   */
  static PlannerOptions options(Map<String, String> env, int channels, DebugLog log) {
    Optional<Algorithm> forced = Optional.empty();
    String v = env.getOrDefault("DDP4J_ALGO", env.getOrDefault("NCCL_ALGO", "")).trim();
    if (!v.isEmpty()) {
      try {
        forced = Optional.of(Algorithm.parse(v));
      } catch (IllegalArgumentException e) {
        log.log(
            DebugLog.Level.WARN,
            "DDP4J_ALGO="
                + v
                + " is not an algorithm of the cpu backend (expected: ring, tree, oneshot, twoshot"
                + " or hierarchical); the planner chooses per size");
      }
    }
    PlannerOptions d = PlannerOptions.defaults(false);
    return new PlannerOptions(forced, 1, channels, d.cost());
  }
}
