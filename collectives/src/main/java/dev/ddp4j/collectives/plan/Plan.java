package dev.ddp4j.collectives.plan;

import java.util.List;

/**
 * What the planner decided for one group of ranks: plain data, the same on every rank that planned
 * over the same topology.
 *
 * @param topologyHash {@code TopologyHash.sha256} of the topology planned over
 * @param devices device index of every rank (rank r runs on devices[r])
 * @param rings ring channels, rank ids, best first
 * @param trees the double binary tree
 * @param islands islands for the hierarchical algorithm (rank ids in intra-island ring order), or
 *     empty
 * @param wideChannels channels of the hierarchical, one-shot and two-shot schedules (hierarchical
 *     runs half of them in each direction)
 * @param directOk whether one-shot and two-shot apply (every pair has a direct P2P or shared-memory
 *     path)
 * @param table predictions for 8 B, 16 B, ... 4 GiB (powers of two)
 * @param warnings advice for the user, each naming the fix
 * @param interHost how the hierarchical column crosses hosts where islands span several (a cuda
 *     group's choice, {@code DDP4J_INTER_HOST}); {@link InterHost#SOCKET} elsewhere
 */
public record Plan(
    String topologyHash,
    int[] devices,
    List<int[]> rings,
    DoubleTree trees,
    List<int[]> islands,
    int wideChannels,
    boolean directOk,
    List<Prediction> table,
    List<String> warnings,
    InterHost interHost) {

  /** This plan with {@code w} as its warnings (the advice reads the plan it is for). */
  Plan withWarnings(List<String> w) {
    return new Plan(
        topologyHash, devices, rings, trees, islands, wideChannels, directOk, table, w, interHost);
  }

  /** Number of ranks. */
  public int ranks() {
    return devices.length;
  }

  /** The prediction for the smallest table size at least {@code bytes} (the last one above it). */
  public Prediction predictionFor(long bytes) {
    for (Prediction p : table) {
      if (p.bytes() >= bytes) {
        return p;
      }
    }
    return table.get(table.size() - 1);
  }

  /** The algorithm to run an all-reduce of {@code bytes} with. */
  public Algorithm algorithmFor(long bytes) {
    return predictionFor(bytes).chosen();
  }

  /** Whether the plan runs {@code a} at some size. */
  public boolean uses(Algorithm a) {
    return table.stream().anyMatch(p -> p.chosen() == a);
  }

  /** The smallest size the plan runs {@code a} at, or -1 where it never does. */
  public long smallestBytesOf(Algorithm a) {
    return table.stream()
        .filter(p -> p.chosen() == a)
        .mapToLong(Prediction::bytes)
        .min()
        .orElse(-1);
  }
}
