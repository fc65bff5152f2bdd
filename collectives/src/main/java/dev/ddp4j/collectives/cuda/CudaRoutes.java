package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.EventPool;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.stall.StallInspector;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.List;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;

/**
 * Opens the one {@link CudaRoute} a cuda group runs, from its agreed plan and its pairs: {@code
 * local} for one rank, {@code staged} where a hop crosses hosts ({@link GpuPlanning#route}), else a
 * {@link PeerRoute} (direct, or the ring around pairs without peer access); either wrapped in a
 * {@link HierarchicalRoute} where the plan runs the hierarchical algorithm at some size (across
 * hosts: the hosts are its islands). Collective: every rank opens the same route with the same
 * store prefix.
 */
final class CudaRoutes {

  private CudaRoutes() {}

  /** What every route of one group shares. */
  record Group(
      WorkerEnvironment worker,
      Store store,
      String prefix,
      long groupNumber,
      Duration timeout,
      CUdevice device,
      int deviceIndex,
      CUcontext context,
      EventPool events,
      StallInspector stalls,
      CudaRoute.Completion done,
      Settings settings) {

    int rank() {
      return worker.rank();
    }

    int size() {
      return worker.worldSize();
    }
  }

  /**
   * @param plan the agreed plan of the whole group
   * @param topology the job's topology with every pair's peer access, which {@code plan} was made
   *     from
   * @param kernels the loaded all-reduce kernels (null for one rank); a route that needs none
   *     unloads them
   * @param chooser the kernel per launch (the plan's {@link PlanChooser}, or a GPU test's)
   */
  static CudaRoute open(
      Group g,
      Plan plan,
      Topology topology,
      PeerRouting routing,
      PlannerOptions options,
      AllReduceKernels kernels,
      AllReduceChooser chooser,
      long scratchBudgetBytes) {
    RouteKind route = GpuPlanning.route(plan, routing);
    if (route instanceof RouteKind.Local) {
      return new LocalRoute(g.done());
    }
    if (route instanceof RouteKind.Staged) {
      kernels.unload();
      StagedRoute staged =
          new StagedRoute(
              StagedPath.open(
                  g.worker(),
                  g.store(),
                  g.timeout(),
                  "cuda" + g.groupNumber() + "-staged",
                  g.context(),
                  g.events(),
                  g.stalls(),
                  g.settings()));
      if (!plan.uses(Algorithm.HIERARCHICAL)) {
        return staged;
      }
      // Hosts as islands: reduce-scatter and all-gather over IPC inside each, the column between
      // them over NCCL or the sockets; other sizes and collectives host-staged.
      return HierarchicalRoute.open(
          g, staged, plan, topology, routing, options, scratchBudgetBytes);
    }
    boolean ringOnly = route instanceof RouteKind.PeerRing;
    int[] ring = plan.rings().get(0);
    // Every channel its own ring order where every peer's scratch is mapped; a ring-only group maps
    // only its first ring's successor (the others may need pairs without peer access).
    List<int[]> orders =
        ringOnly
            ? List.of(ring)
            : plan.rings()
                .subList(0, Math.min(plan.rings().size(), AllReduceLauncher.MAX_RING_ORDERS));
    int rank = g.rank();
    AllReduceLauncher launcher =
        AllReduceLauncher.open(
            rank,
            g.size(),
            g.device(),
            g.store(),
            g.prefix(),
            g.timeout(),
            chooser,
            kernels,
            scratchBudgetBytes,
            orders,
            ringOnly,
            !routing.peerHop(PeerRing.prev(ring, rank), rank),
            !routing.peerHop(rank, PeerRing.next(ring, rank)));
    boolean ringKernels = ringOnly || options.forced().orElse(null) == Algorithm.RING;
    CollectiveLauncher collectives =
        ringKernels
            ? null
            : new CollectiveLauncher(rank, g.size(), g.timeout(), plan.wideChannels(), launcher);
    // Point-to-point and gather/scatter/all-to-all move over a copy-engine mailbox where every
    // peer is mapped; a ring-only group makes them of its ring collectives instead.
    MailboxCollectives mailbox =
        ringOnly
            ? null
            : new MailboxCollectives(
                rank,
                g.size(),
                PeerMailbox.exchange(rank, g.size(), g.store(), g.prefix(), g.timeout()),
                g.events());
    PeerRoute flat = new PeerRoute(route.text(), launcher, collectives, mailbox, g.done());
    if (!plan.uses(Algorithm.HIERARCHICAL)) {
      return flat;
    }
    return HierarchicalRoute.open(g, flat, plan, topology, routing, options, scratchBudgetBytes);
  }
}
