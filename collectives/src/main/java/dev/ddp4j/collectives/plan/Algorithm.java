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
  HIERARCHICAL,
  /**
   * One-shot whose data travels in 8-byte words that carry their own flag (NCCL's LL protocol): no
   * fence and no separate flag write, twice the bytes on the links; GPUs only, at most 256 KiB a
   * launch.
   */
  LL,
  /**
   * One-shot with the copy engines moving the data and a kernel reducing each chunk as its flag
   * arrives; GPUs only. Slower than the SM one-shot where measured (235 against 329 GB/s on 2 x
   * H200), so it runs only where {@code DDP4J_ALGO=copyengine} forces it.
   */
  COPYENGINE;

  /** What the planner predicts when no executor narrows it: the algorithms of both executors. */
  public static Set<Algorithm> modelled() {
    return EnumSet.of(RING, TREE, ONESHOT, TWOSHOT, HIERARCHICAL);
  }

  /**
   * What the cuda executor runs: its kernels, and the hierarchical all-reduce composed of them
   * (islands on one host). Trees run on the cpu executor only so far; the cuda group refuses {@code
   * DDP4J_ALGO=tree}.
   */
  public static Set<Algorithm> onCuda() {
    return EnumSet.of(RING, ONESHOT, TWOSHOT, LL, COPYENGINE, HIERARCHICAL);
  }

  /**
   * The algorithms with an all-reduce kernel of their own in the cuda executor's fat binary; the
   * hierarchical all-reduce is composed of the ring kernels.
   */
  public static Set<Algorithm> kernels() {
    return EnumSet.of(RING, ONESHOT, TWOSHOT, LL, COPYENGINE);
  }

  /**
   * What the planner may choose on its own for a cuda group: every kernel adds the ranks' inputs in
   * rank order, so one-shot and LL give every rank the same bits at any rank count; the copy engine
   * only when forced (see {@link #COPYENGINE}).
   */
  public static Set<Algorithm> chosenOnCuda() {
    return EnumSet.of(RING, ONESHOT, TWOSHOT, LL, HIERARCHICAL);
  }

  /**
   * What the planner may choose on its own for {@code ranks} CPU ranks. One-shot on 3 or more ranks
   * lets each rank add in its own order, so float sums could differ in the last bit between ranks
   * and model replicas drift apart; it is left out there ({@code DDP4J_ALGO=oneshot} still forces
   * it). On 2 ranks both add the same two numbers.
   */
  public static Set<Algorithm> chosenOnCpus(int ranks) {
    Set<Algorithm> all = modelled();
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
   * twoshot, hierarchical, ll, copyengine ({@code ce}); NCCL's {@code NVLS}, {@code CollNet*} mean
   * nothing here. The same names on both backends; each refuses or reports what it cannot run.
   */
  public static Algorithm parse(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
    if (v.equals("ce")) {
      return COPYENGINE;
    }
    for (Algorithm a : values()) {
      if (a.id().equals(v)) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "DDP4J_ALGO="
            + value
            + " is not an algorithm (expected one of: ring, tree, oneshot, twoshot, hierarchical, ll,"
            + " copyengine)");
  }
}
