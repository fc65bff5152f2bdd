package dev.ddp4j.collectives.cuda;

/**
 * How a cuda group runs, from its plan and its pairs ({@link GpuPlanning#route}): the routes {@link
 * CudaRoutes} opens, one kind each, and the words the route lines print ({@link #text}).
 */
sealed interface RouteKind {

  /** The words of the route lines, e.g. {@code ring 0-2-1-3 (1->2 via host memory)}. */
  String text();

  /** One rank: nothing to move. */
  record Local() implements RouteKind {
    @Override
    public String text() {
      return "local";
    }
  }

  /** Every pair has peer access: every kernel. */
  record Direct() implements RouteKind {
    @Override
    public String text() {
      return "direct";
    }
  }

  /**
   * The ring kernels around {@code ring} (the plan's first ring), on one host; {@code hostHops}
   * names the hops without peer access, which go through host memory both GPUs map, or is null
   * where every hop is over IPC.
   */
  record PeerRing(int[] ring, String hostHops) implements RouteKind {
    @Override
    public String text() {
      StringBuilder b = new StringBuilder("ring ");
      for (int k = 0; k < ring.length; k++) {
        b.append(k == 0 ? "" : "-").append(ring[k]);
      }
      return hostHops == null ? b.toString() : b + " (" + hostHops + " via host memory)";
    }
  }

  /** Ranks on several hosts with a hop between them: everything through the cpu backend. */
  record Staged() implements RouteKind {
    @Override
    public String text() {
      return "staged";
    }
  }
}
