package dev.ddp4j.collectives.plan;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The all-reduce algorithms the planner chooses among; {@link #id()} is the name users see. */
public enum Algorithm {
  /** Ring reduce-scatter then all-gather, per channel: bandwidth-optimal on a uniform ring. */
  RING,
  /** Two binary trees, each reducing up and broadcasting down half of the data: few hops. */
  TREE,
  /** Every rank reads every other rank's whole buffer: one step, for small sizes on P2P groups. */
  ONESHOT,
  /** Direct reduce-scatter then direct all-gather: two steps, each rank owns 1/n. */
  TWOSHOT,
  /** Reduce-scatter inside islands, all-reduce across islands on 1/k, all-gather inside. */
  HIERARCHICAL;

  /**
   * What the planner may choose on its own for {@code ranks} CPU ranks. One-shot on 3 or more ranks
   * lets each rank add in its own order, so float sums could differ in the last bit between ranks
   * and model replicas drift apart; it is left out there ({@code DDP4J_ALGO=oneshot} still forces
   * it). On 2 ranks both add the same two numbers.
   */
  public static Set<Algorithm> chosenOnCpus(int ranks) {
    Set<Algorithm> all = EnumSet.allOf(Algorithm.class);
    if (ranks > 2) {
      all.remove(ONESHOT);
    }
    return all;
  }

  /** Lower-case name: {@code ring}, {@code tree}, ... as {@code DDP4J_ALGO} and JSON use it. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses {@code DDP4J_ALGO} / {@code NCCL_ALGO} values, case-insensitive: ring, tree, oneshot,
   * twoshot, hierarchical (NCCL's {@code NVLS}, {@code CollNet*} mean nothing here).
   */
  public static Algorithm parse(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
    for (Algorithm a : values()) {
      if (a.id().equals(v)) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "DDP4J_ALGO="
            + value
            + " is not an algorithm (expected one of: ring, tree, oneshot, twoshot, hierarchical)");
  }
}
