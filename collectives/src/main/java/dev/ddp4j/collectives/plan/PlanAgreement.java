package dev.ddp4j.collectives.plan;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.NcclTopoXmlWriter;
import dev.ddp4j.collectives.topology.Topology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * How a group of any backend gets its plan, as ARCHITECTURE.md's data path has it: the lowest rank
 * of each host publishes that host's topology as NCCL topology XML through the store, each rank
 * publishes which device of its host it runs on, every rank joins the hosts in the order of their
 * lowest rank, runs the deterministic {@link Planner}, and checks its plan's SHA-256 against rank
 * 0's, so ranks with different settings fail at creation naming both instead of hanging in a
 * collective.
 *
 * <pre>
 *   store key (under the group's prefix)   value (UTF-8)
 *   plan/host/&lt;h&gt;                          host h's topology, NCCL XML (written by its lowest rank)
 *   plan/device/&lt;rank&gt;                     the rank's device index within its host's topology
 *   plan/digest/&lt;rank&gt;                     the hex SHA-256 of the rank's plan (PlanDigest)
 * </pre>
 */
public final class PlanAgreement {

  /** What the group agreed on: the job's topology (after {@code refine}) and the plan over it. */
  public record Agreed(Topology topology, Plan plan) {}

  /** A change to the joined topology that every rank makes alike, knowing each rank's device. */
  @FunctionalInterface
  public interface Refine {
    Topology apply(Topology job, int[] devices);
  }

  /** What an executor asks of the planner. */
  public record Request(
      PlannerOptions options, Set<Algorithm> supported, Set<Algorithm> allowed, String settings) {}

  private PlanAgreement() {}

  /**
   * Plans for this group and checks that rank 0 planned the same (collective).
   *
   * @param nodeOfRank the host identity of every rank, as the transport saw it
   * @param hostTopology this host's topology; called on the lowest rank of each host only
   * @param myDevice this rank's device index within its host's topology (as published)
   * @param refine applied to the joined topology on every rank alike (peer access, say)
   * @param request the planner's options and the algorithms the executor runs; {@code settings}
   *     names what feeds the options, for the mismatch message
   * @throws CollectiveMismatchException when rank 0's plan differs, naming both digests and the
   *     settings that feed the planner
   */
  public static Agreed agree(
      Store store,
      String keyPrefix,
      int rank,
      List<String> nodeOfRank,
      Supplier<Topology> hostTopology,
      ToIntFunction<Topology> myDevice,
      Refine refine,
      Request request,
      Duration timeout) {
    Map<String, List<Integer>> hosts = new LinkedHashMap<>(); // in order of lowest rank
    for (int r = 0; r < nodeOfRank.size(); r++) {
      hosts.computeIfAbsent(nodeOfRank.get(r), k -> new ArrayList<>()).add(r);
    }
    List<String> hostNames = List.copyOf(hosts.keySet());
    int myHost = hostNames.indexOf(nodeOfRank.get(rank));
    if (hosts.get(nodeOfRank.get(rank)).get(0) == rank) {
      store.set(
          keyPrefix + "plan/host/" + myHost,
          NcclTopoXmlWriter.write(hostTopology.get()).getBytes(StandardCharsets.UTF_8));
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
    store.set(
        keyPrefix + "plan/device/" + rank,
        Integer.toString(myDevice.applyAsInt(perHost.get(myHost)))
            .getBytes(StandardCharsets.UTF_8));
    int[] devices = new int[nodeOfRank.size()];
    for (int r = 0; r < devices.length; r++) {
      int h = hostNames.indexOf(nodeOfRank.get(r));
      int local =
          Integer.parseInt(
              new String(
                  store.get(keyPrefix + "plan/device/" + r, timeout), StandardCharsets.UTF_8));
      devices[r] = firstDevice[h] + local;
    }
    Topology job =
        refine.apply(perHost.size() == 1 ? perHost.get(0) : MultiHost.join(perHost), devices);
    Plan plan =
        Planner.plan(job, devices, request.options(), request.supported(), request.allowed());
    String digest = PlanDigest.sha256(plan);
    store.set(keyPrefix + "plan/digest/" + rank, digest.getBytes(StandardCharsets.UTF_8));
    // Rank 0 checks every rank, every other rank checks rank 0: each side of a mismatch fails here.
    for (int other = 0; other < nodeOfRank.size(); other++) {
      if (other != rank && (rank == 0 || other == 0)) {
        byte[] theirs = store.get(keyPrefix + "plan/digest/" + other, timeout);
        String digestOfOther = new String(theirs, StandardCharsets.UTF_8);
        if (!digestOfOther.equals(digest)) {
          throw new CollectiveMismatchException(
              "rank "
                  + rank
                  + " planned "
                  + digest.substring(0, 12)
                  + " but rank "
                  + other
                  + " planned "
                  + digestOfOther.substring(0, 12)
                  + " for the same group: give every rank the same "
                  + request.settings());
        }
      }
    }
    return new Agreed(job, plan);
  }
}
