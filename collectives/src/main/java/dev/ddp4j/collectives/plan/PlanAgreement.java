package dev.ddp4j.collectives.plan;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.NcclTopoXmlWriter;
import dev.ddp4j.collectives.topology.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * How a group of any backend gets its plan, as ARCHITECTURE.md's data path has it: in one store
 * round every rank publishes what names its device within its host, and the lowest rank of each
 * host that host's topology as NCCL topology XML; every rank joins the hosts in the order of their
 * lowest rank, finds every rank's device, runs the deterministic {@link Planner}, and in a second
 * round checks its plan's SHA-256 against rank 0's, so ranks with different settings fail at
 * creation naming both instead of hanging in a collective.
 *
 * <pre>
 *   store key (under the group's prefix)   value (UTF-8)
 *   plan/rank/&lt;rank&gt;                       the rank's device name ({@link DeviceOf}), a newline, and
 *                                          its host's topology as NCCL XML if it is the host's
 *                                          lowest rank (else nothing)
 *   plan/digest/&lt;rank&gt;                     the hex SHA-256 of the rank's plan (PlanDigest)
 * </pre>
 */
public final class PlanAgreement {

  /** What the group agreed on: the job's topology (after {@code refine}) and the plan over it. */
  public record Agreed(Topology topology, Plan plan) {}

  /**
   * A rank's device index within its host's topology, from what that rank published as its device
   * name; a pure function of its arguments, since every rank evaluates it for every rank.
   */
  @FunctionalInterface
  public interface DeviceOf {
    int index(int rank, Topology host, String published);
  }

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
   * @param myDevice what names this rank's device within its host (no newline), for {@code
   *     deviceOf}
   * @param deviceOf every rank's device index within its host, from its {@code myDevice}
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
      String myDevice,
      DeviceOf deviceOf,
      Refine refine,
      Request request,
      Duration timeout) {
    int size = nodeOfRank.size();
    Map<String, List<Integer>> hosts = new LinkedHashMap<>(); // in order of lowest rank
    for (int r = 0; r < size; r++) {
      hosts.computeIfAbsent(nodeOfRank.get(r), k -> new ArrayList<>()).add(r);
    }
    List<String> hostNames = List.copyOf(hosts.keySet());
    boolean lowest = hosts.get(nodeOfRank.get(rank)).get(0) == rank;
    StoreExchange exchange = new StoreExchange(store, rank, size, timeout);
    List<String> said =
        exchange.allGather(
            keyPrefix + "plan/rank/",
            myDevice + "\n" + (lowest ? NcclTopoXmlWriter.write(hostTopology.get()) : ""),
            ExchangeCodec.UTF8);
    List<Topology> perHost = new ArrayList<>();
    int[] firstDevice = new int[hostNames.size()];
    int devicesSoFar = 0;
    for (int h = 0; h < hostNames.size(); h++) {
      String xml = said.get(hosts.get(hostNames.get(h)).get(0));
      Topology t = NcclTopoXmlReader.parse(xml.substring(xml.indexOf('\n') + 1));
      perHost.add(t);
      firstDevice[h] = devicesSoFar;
      devicesSoFar += t.deviceCount();
    }
    int[] devices = new int[size];
    for (int r = 0; r < size; r++) {
      int h = hostNames.indexOf(nodeOfRank.get(r));
      String name = said.get(r).substring(0, said.get(r).indexOf('\n'));
      devices[r] = firstDevice[h] + deviceOf.index(r, perHost.get(h), name);
    }
    Topology job =
        refine.apply(perHost.size() == 1 ? perHost.get(0) : MultiHost.join(perHost), devices);
    Plan plan =
        Planner.plan(job, devices, request.options(), request.supported(), request.allowed());
    String digest = PlanDigest.sha256(plan);
    // Rank 0 checks every rank, every other rank checks rank 0: each side of a mismatch fails here.
    int[] checked = rank == 0 ? IntStream.range(0, size).toArray() : new int[] {0};
    List<String> digests =
        exchange.gather(keyPrefix + "plan/digest/", digest, checked, ExchangeCodec.UTF8);
    for (int i = 0; i < checked.length; i++) {
      int other = checked[i];
      String digestOfOther = digests.get(i);
      if (other != rank && !digestOfOther.equals(digest)) {
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
    return new Agreed(job, plan);
  }
}
