package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Topology;
import java.util.Arrays;

/**
 * The local-rank to GPU order the launcher should use, so that neighbouring ranks are neighbours in
 * the topology: the order of the best ring through this host's devices, starting at device 0. Where
 * the identity order (0, 1, 2, ...) is as good a ring, the identity is kept, so users only see a
 * reordering when it pays.
 */
public final class GpuOrder {

  private GpuOrder() {}

  /**
   * Device indices for local ranks 0..ranks-1 (the first {@code ranks} devices along the best ring
   * when fewer ranks than devices).
   */
  public static int[] of(Topology t, int ranks) {
    int n = t.deviceCount();
    if (ranks < 1 || ranks > n) {
      throw new IllegalArgumentException(
          ranks + " ranks on a topology of " + n + " devices (expected: 1.." + n + ")");
    }
    int[] identity = new int[n];
    for (int i = 0; i < n; i++) {
      identity[i] = i;
    }
    if (t.hostCount() > 1 || n > RingSearch.EXACT_LIMIT) {
      return Arrays.copyOf(identity, ranks);
    }
    RingScorer scorer = new RingScorer(t, identity, null);
    int[] best = RingSearch.best(scorer, identity);
    int[] order = scorer.score(identity).compareTo(scorer.score(best)) >= 0 ? identity : best;
    return Arrays.copyOf(order, ranks);
  }

  /**
   * The {@code CUDA_VISIBLE_DEVICES} value that gives local rank i the i-th GPU of {@code order}
   * (CUDA ordinals from the devices' {@code dev} attribute).
   */
  public static String cudaVisibleDevices(Topology t, int[] order) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < order.length; i++) {
      sb.append(i == 0 ? "" : ",")
          .append(t.device(order[i]).attr("dev", Integer.toString(order[i])));
    }
    return sb.toString();
  }
}
