package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.cuda.GpuPlanning;
import dev.ddp4j.collectives.plan.GpuOrder;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.spi.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The peer-access matrix against the topology: a GPU pair on NVLink or under one PCIe switch
 * ({@code PIX}, {@code PXB}) should have peer access; where the driver denies it (PCIe ACS, the
 * IOMMU, a missing NVLink fabric) the pair is named with what the plan predicts it costs: the
 * all-reduce bus bandwidth of {@link #SIZE_BYTES} as it is and with that pair's access. Pairs
 * across host bridges or sockets often lack peer access by design and are only counted.
 */
final class PeerAccessCheck {

  static final String NAME = "peer-access";

  /** The size whose prediction the report quotes: a gradient bucket's scale. */
  static final long SIZE_BYTES = 256L << 20;

  /** Pairs named one per line at most; the rest are counted. */
  static final int MAX_PAIR_LINES = 8;

  private PeerAccessCheck() {}

  static List<Finding> check(GpuInventory inv, int ranks, Settings env) {
    Topology t = inv.topology();
    if (t == null || t.deviceCount() < 2) {
      return List.of(
          Finding.ok(
              NAME,
              t == null && !inv.gpus().isEmpty()
                  ? "no topology to check peer access against (nvidia-smi topo -m did not run)"
                  : "fewer than 2 GPUs: no pair to check"));
    }
    int n = t.deviceCount();
    List<int[]> denied = new ArrayList<>();
    int farDenied = 0;
    for (int a = 0; a < n; a++) {
      for (int b = a + 1; b < n; b++) {
        if (t.peerAccess(a, b) && t.peerAccess(b, a)) {
          continue;
        }
        if (close(t.route(a, b).type())) {
          denied.add(new int[] {a, b});
        } else {
          farDenied++;
        }
      }
    }
    String far =
        farDenied == 0
            ? ""
            : farDenied
                + " pair(s) across host bridges or sockets without peer access (common there; their"
                + " hops go through host memory)";
    if (denied.isEmpty()) {
      return List.of(
          Finding.ok(
              NAME,
              "every NVLink and same-switch GPU pair has peer access"
                  + (far.isEmpty() ? "" : "; " + far)));
    }
    int[] devices = GpuOrder.of(t, Math.min(Math.max(2, ranks), n));
    double asIs = busBw(GpuPlanning.plan(t, devices, env));
    List<Finding> out = new ArrayList<>();
    for (int i = 0; i < denied.size() && i < MAX_PAIR_LINES; i++) {
      int[] p = denied.get(i);
      Route r = t.route(p[0], p[1]);
      double with = busBw(GpuPlanning.plan(granted(t, List.of(p)), devices, env));
      out.add(
          Finding.warn(
              NAME,
              String.format(
                  Locale.ROOT,
                  "%s-%s (%s) have no peer access; the plan predicts all-reduce busbw at %s: %s",
                  t.deviceLabel(p[0]),
                  t.deviceLabel(p[1]),
                  r.label(),
                  dev.ddp4j.collectives.plan.Sizes.human(SIZE_BYTES),
                  cost(asIs, with, "this pair")),
              fix(r.type())));
    }
    if (denied.size() > 1) {
      double all = busBw(GpuPlanning.plan(granted(t, denied), devices, env));
      out.add(
          Finding.warn(
              NAME,
              String.format(
                  Locale.ROOT,
                  "%d NVLink/same-switch pairs without peer access%s; the plan predicts %s",
                  denied.size(),
                  denied.size() > MAX_PAIR_LINES ? " (" + MAX_PAIR_LINES + " named above)" : "",
                  cost(asIs, all, "all of them") + (far.isEmpty() ? "" : "; " + far)),
              fix(t.route(denied.get(0)[0], denied.get(0)[1]).type())));
    }
    return out;
  }

  /** {@code 10.4 GB/s as is, 12.3 GB/s with this pair}, or that the plan loses nothing. */
  private static String cost(double asIs, double with, String what) {
    if (with - asIs < 0.05) {
      return String.format(
          Locale.ROOT,
          "%.1f GB/s as is, no more with %s (the ring's bottleneck lies elsewhere)",
          asIs,
          what);
    }
    return String.format(Locale.ROOT, "%.1f GB/s as is, %.1f GB/s with %s", asIs, with, what);
  }

  /** NVLink, or one PCIe switch (or a tree of them) without a host bridge between. */
  static boolean close(PathType type) {
    return type == PathType.NV || type == PathType.PIX || type == PathType.PXB;
  }

  private static String fix(PathType type) {
    return type == PathType.NV
        ? "NVLink without peer access: check `nvidia-smi nvlink --status` and, on NVSwitch systems,"
            + " that nvidia-fabricmanager runs"
        : "PCIe ACS or the IOMMU blocks peer traffic under that switch: turn ACS off on its"
            + " downstream ports (BIOS, or setpci), or boot with iommu=pt; in a VM, pass the whole"
            + " switch through";
  }

  private static double busBw(Plan p) {
    return p.predictionFor(SIZE_BYTES).busBwGbps(p.algorithmFor(SIZE_BYTES));
  }

  /** {@code t} with peer access added, both ways, for {@code pairs}. */
  private static Topology granted(Topology t, List<int[]> pairs) {
    int n = t.deviceCount();
    boolean[][] access = new boolean[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        access[a][b] = t.peerAccess(a, b);
      }
    }
    for (int[] p : pairs) {
      access[p[0]][p[1]] = true;
      access[p[1]][p[0]] = true;
    }
    return t.withPeerAccess(access);
  }
}
