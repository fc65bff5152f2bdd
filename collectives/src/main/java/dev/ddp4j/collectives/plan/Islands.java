package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Splits ranks into islands for the hierarchical algorithm: groups of equal size joined inside by
 * faster routes than between them. Across hosts the islands are the hosts; on one host, the fastest
 * bandwidth level whose connected groups are at least two of equal size at least two (the NVLink
 * pairs of a 4-GPU box, the sockets of a PCIe box).
 */
public final class Islands {

  private Islands() {}

  /**
   * The islands (rank ids, ascending, islands ordered by their lowest rank), or empty when the
   * ranks do not split that way.
   */
  public static List<int[]> of(Topology t, int[] devices) {
    int n = devices.length;
    TreeMap<Integer, List<Integer>> byHost = new TreeMap<>();
    for (int r = 0; r < n; r++) {
      byHost.computeIfAbsent(t.hostOf(devices[r]), h -> new ArrayList<>()).add(r);
    }
    if (byHost.size() > 1) {
      List<int[]> hosts = new ArrayList<>();
      byHost.values().forEach(l -> hosts.add(l.stream().mapToInt(Integer::intValue).toArray()));
      return equalSizes(hosts) ? hosts : List.of();
    }
    TreeSet<Double> levels = new TreeSet<>();
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        if (a != b) {
          levels.add(t.route(devices[a], devices[b]).gbps());
        }
      }
    }
    for (double level : levels.descendingSet()) {
      List<int[]> groups = components(t, devices, level);
      if (groups.size() == 1) {
        break;
      }
      if (equalSizes(groups)) {
        return groups;
      }
    }
    return List.of();
  }

  private static boolean equalSizes(List<int[]> groups) {
    return groups.size() >= 2
        && groups.get(0).length >= 2
        && groups.stream().allMatch(g -> g.length == groups.get(0).length);
  }

  private static List<int[]> components(Topology t, int[] devices, double minGbps) {
    int n = devices.length;
    int[] comp = new int[n];
    Arrays.fill(comp, -1);
    List<int[]> out = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      if (comp[s] >= 0) {
        continue;
      }
      List<Integer> members = new ArrayList<>();
      comp[s] = out.size();
      members.add(s);
      for (int i = 0; i < members.size(); i++) {
        int a = members.get(i);
        for (int b = 0; b < n; b++) {
          if (comp[b] < 0 && t.route(devices[a], devices[b]).gbps() >= minGbps) {
            comp[b] = out.size();
            members.add(b);
          }
        }
      }
      out.add(members.stream().mapToInt(Integer::intValue).sorted().toArray());
    }
    return out;
  }
}
