package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Chooses the ring channels: each next ring is the best one given the flows of the rings before it,
 * so the second ring takes the other direction of every link and further rings take other NVLinks
 * where there are any. Across hosts, each host's ring is cut at a different GPU per channel and the
 * pieces are chained host after host, so channels leave through different GPUs (and NICs).
 */
final class RingChannels {

  private RingChannels() {}

  /** Up to {@code count} rings over the ranks (rank r on devices[r]). */
  static List<int[]> search(Topology t, int[] devices, int count) {
    int n = devices.length;
    TreeMap<Integer, List<Integer>> byHost = new TreeMap<>();
    for (int r = 0; r < n; r++) {
      byHost.computeIfAbsent(t.hostOf(devices[r]), h -> new ArrayList<>()).add(r);
    }
    List<int[]> rings = new ArrayList<>();
    int[] flows = new int[2 * t.links().size()];
    Map<String, int[]> cache = new HashMap<>();
    int distinct = 0;
    for (int c = 0; c < count; c++) {
      RingScorer scorer = new RingScorer(t, devices, flows);
      int[] ring;
      if (distinct > 0) {
        // The search came back to a ring it had: flows are spread evenly, so cycle those rings.
        ring = rings.get(c % distinct);
      } else if (byHost.size() == 1) {
        int[] all = new int[n];
        for (int r = 0; r < n; r++) {
          all[r] = r;
        }
        ring = RingSearch.best(scorer, all);
      } else {
        ring = acrossHosts(t, devices, byHost, c, cache);
      }
      for (int i = 0; i < n; i++) {
        scorer.apply(flows, ring[i], ring[(i + 1) % n], 1);
      }
      rings.add(ring);
      if (distinct == 0 && byHost.size() == 1 && repeated(rings)) {
        distinct = rings.size() - 1;
      }
    }
    return rings;
  }

  /** Whether the last ring equals an earlier one: further searches would repeat themselves. */
  private static boolean repeated(List<int[]> rings) {
    if (rings.size() < 2) {
      return false;
    }
    int[] last = rings.get(rings.size() - 1);
    for (int i = 0; i < rings.size() - 1; i++) {
      if (java.util.Arrays.equals(rings.get(i), last)) {
        return true;
      }
    }
    return false;
  }

  private static int[] acrossHosts(
      Topology t,
      int[] devices,
      TreeMap<Integer, List<Integer>> byHost,
      int channel,
      Map<String, int[]> cache) {
    List<Integer> out = new ArrayList<>();
    for (List<Integer> members : byHost.values()) {
      int[] m = members.stream().mapToInt(Integer::intValue).toArray();
      // Hosts built alike get the same local ring: search it once per shape, not per host.
      int[] local =
          cache.computeIfAbsent(
              shape(t, devices, m) + "#" + channel / 2, k -> localRing(t, devices, m));
      int k = local.length;
      int rot = (channel / 2) % k;
      for (int i = 0; i < k; i++) {
        int pos = channel % 2 == 0 ? (rot + i) % k : Math.floorMod(rot - i, k);
        out.add(m[local[pos]]);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The best ring over one host's ranks, as positions into {@code members}. */
  private static int[] localRing(Topology t, int[] devices, int[] members) {
    int[] localDevices = new int[members.length];
    int[] ids = new int[members.length];
    for (int i = 0; i < members.length; i++) {
      localDevices[i] = devices[members[i]];
      ids[i] = i;
    }
    return RingSearch.best(new RingScorer(t, localDevices, null), ids);
  }

  private static String shape(Topology t, int[] devices, int[] members) {
    StringBuilder sb = new StringBuilder();
    for (int a : members) {
      for (int b : members) {
        if (a != b) {
          var r = t.route(devices[a], devices[b]);
          sb.append(r.label()).append(r.gbps()).append(r.hops().length).append(',');
        }
      }
    }
    return sb.toString();
  }
}
