package dev.ddp4j.collectives.cpu;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cpu group's ring: ranks of one node next to each other, nodes in the order of their lowest
 * rank, ranks ascending within a node. A ring in plain rank order crosses the network at every step
 * when a job places ranks round-robin over hosts (0 and 2 on host A, 1 and 3 on host B: four
 * crossings); grouped by host it crosses once per host (two), as the planner's rings do for GPUs.
 * Pure and deterministic, so every rank derives the same ring from the same node names.
 */
final class RingOrder {

  private RingOrder() {}

  /** The ring over ranks {@code 0..nodeOfRank.size()-1}. */
  static int[] hostsAdjacent(List<String> nodeOfRank) {
    Map<String, List<Integer>> byNode = new LinkedHashMap<>(); // first seen = lowest rank first
    for (int r = 0; r < nodeOfRank.size(); r++) {
      byNode.computeIfAbsent(nodeOfRank.get(r), k -> new ArrayList<>()).add(r);
    }
    int[] ring = new int[nodeOfRank.size()];
    int i = 0;
    for (List<Integer> ranks : byNode.values()) {
      for (int r : ranks) {
        ring[i++] = r;
      }
    }
    return ring;
  }

  /** The rank after {@code rank} on {@code ring}. */
  static int next(int[] ring, int rank) {
    for (int p = 0; p < ring.length; p++) {
      if (ring[p] == rank) {
        return ring[(p + 1) % ring.length];
      }
    }
    throw new IllegalArgumentException("rank " + rank + " is not on the ring");
  }
}
