package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.cpu.DebugLog;
import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.transport.TransportConfig;
import java.util.Locale;
import java.util.Map;

/**
 * Logs a cuda rank's {@link CudaRouteLines} through the cpu backend's NCCL-style {@link DebugLog}
 * ({@code DDP4J_DEBUG=INFO}), with what joins the GPUs taken from the discovered topology (only
 * discovered when the lines are printed).
 */
final class RouteLog {

  private RouteLog() {}

  static void log(PeerRouting routing, int rank) {
    Map<String, String> env = System.getenv();
    DebugLog log = new DebugLog(env, rank);
    if (!log.enabled(DebugLog.Level.WARN)) {
      return;
    }
    boolean info = log.enabled(DebugLog.Level.INFO);
    CudaRouteLines.Paths paths = info || routing.staged() ? discovered() : (a, b) -> null;
    int channels = TransportConfig.fromEnvironment(StagedPath.hostEnvironment(env)).channels();
    CudaRouteLines.Lines lines = CudaRouteLines.ofRank(routing, rank, channels, paths);
    lines.info().forEach(l -> log.log(DebugLog.Level.INFO, l));
    lines.warn().forEach(l -> log.log(DebugLog.Level.WARN, l));
  }

  /** Logs, at INFO, which all-reduce kernel runs at which size ({@link KernelBySize}). */
  static void kernels(int rank, String bySize) {
    DebugLog log = new DebugLog(System.getenv(), rank);
    if (log.enabled(DebugLog.Level.INFO)) {
      log.log(DebugLog.Level.INFO, "all-reduce kernel by size: " + bySize);
    }
  }

  /** Paths between this host's GPUs as the topology shows them; null paths where it fails. */
  private static CudaRouteLines.Paths discovered() {
    Topology t = LinkBandwidths.hostTopology();
    if (t == null) {
      return (a, b) -> null;
    }
    return (a, b) -> {
      int ia = index(t, a);
      int ib = index(t, b);
      return ia < 0 || ib < 0 ? null : describe(t.route(ia, ib));
    };
  }

  private static int index(Topology t, int ordinal) {
    for (int i = 0; i < t.deviceCount(); i++) {
      if (t.hostOf(i) == 0 && t.device(i).attr("dev", "").equals(Integer.toString(ordinal))) {
        return i;
      }
    }
    return -1;
  }

  /** {@code NVL (NV18, 450 GB/s)} or {@code PIX (24 GB/s)}. */
  static String describe(Route r) {
    String gbps =
        r.gbps() >= 10
            ? String.format(Locale.ROOT, "%.0f", r.gbps())
            : String.format(Locale.ROOT, "%.1f", r.gbps());
    return r.type() == PathType.NV
        ? "NVL (" + r.label() + ", " + gbps + " GB/s)"
        : r.type().name() + " (" + gbps + " GB/s)";
  }
}
