package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.cuda.PeerRouting.Hop;
import dev.ddp4j.collectives.cuda.PeerRouting.RankPeer;
import dev.ddp4j.collectives.cuda.PeerRouting.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The route lines a cuda rank logs with {@code DDP4J_DEBUG=INFO}, in NCCL's form (shared
 * ARCHITECTURE.md): {@code Channel 00/01 : 0[0] -> 1[1] via P2P/IPC over NVL (NV18, 450 GB/s)} for
 * each peer the kernels write into; for a staged group the cpu backend's ring hops, {@code via
 * SHM/staged over PCI (...)} on one host and {@code via NET/Socket over NET (...)} between hosts. A
 * staged hop between GPUs that do have a direct path is also a WARN line naming the cause and the
 * fix. A group routed around pairs without peer access ({@link PeerRouting.Mode#RING}) logs its
 * ring ({@code Ring 00 : 0[0] -> 2[2] -> 1[1] -> 3[3] -> 0[0]}), this rank's hop on it, one {@code
 * ring avoids 0-1: <why>} line per missing pair. Plain data in, strings out: tested without a GPU.
 */
public final class CudaRouteLines {

  /** What joins two GPUs of this host, e.g. {@code NVL (NV18, 450 GB/s)}; null when unknown. */
  public interface Paths {
    String between(int deviceA, int deviceB);
  }

  /** INFO lines (the routes) and WARN lines (slow hops with their fix). */
  public record Lines(List<String> info, List<String> warn) {}

  private CudaRouteLines() {}

  /**
   * The lines of {@code rank}.
   *
   * @param stagedChannels the cpu backend's ring channels ({@code DDP4J_NCHANNELS}) of a staged
   *     group
   */
  public static Lines ofRank(PeerRouting routing, int rank, int stagedChannels, Paths paths) {
    List<String> info = new ArrayList<>();
    List<String> warn = new ArrayList<>();
    int n = routing.size();
    if (n < 2) {
      return new Lines(info, warn);
    }
    if (routing.mode() == PeerRouting.Mode.RING) {
      ringLines(routing, rank, paths, info);
      return new Lines(info, warn);
    }
    if (!routing.staged()) {
      // The kernels push to every peer directly, one logical channel per peer.
      for (int p = 0; p < n; p++) {
        if (p != rank) {
          info.add(line(0, 1, routing, routing.effective(rank, p), paths));
        }
      }
      return new Lines(info, warn);
    }
    int next = (rank + 1) % n;
    Hop hop = routing.effective(rank, next);
    for (int c = 0; c < stagedChannels; c++) {
      info.add(line(c, stagedChannels, routing, hop, paths));
    }
    String direct =
        hop.transport() == Transport.SHM_STAGED ? directPath(routing, hop, paths) : null;
    if (direct != null) {
      warn.add(
          String.format(
              Locale.ROOT,
              "Channel 00 : %s goes through host memory though %s joins the GPUs (%s); %s",
              ranks(routing, hop),
              direct,
              hop.reason(),
              fix(routing, hop)));
    }
    return new Lines(info, warn);
  }

  private static void ringLines(PeerRouting routing, int rank, Paths paths, List<String> info) {
    int[] ring = routing.ring();
    StringBuilder order = new StringBuilder("Ring 00 : ");
    for (int k = 0; k <= ring.length; k++) {
      RankPeer p = routing.peers().get(ring[k % ring.length]);
      order
          .append(k == 0 ? "" : " -> ")
          .append(p.rank())
          .append('[')
          .append(p.device())
          .append(']');
    }
    info.add(order + " (every collective)");
    info.add(line(0, 1, routing, routing.pairwise(rank, PeerRing.next(ring, rank)), paths));
    for (Hop missing : routing.missingPairs()) {
      info.add("ring avoids " + missing.from() + "-" + missing.to() + ": " + missing.reason());
    }
  }

  private static String line(int c, int channels, PeerRouting routing, Hop hop, Paths paths) {
    return String.format(
        Locale.ROOT,
        "Channel %02d/%02d : %s via %s",
        c,
        channels,
        ranks(routing, hop),
        via(routing, hop, paths));
  }

  private static String ranks(PeerRouting routing, Hop hop) {
    RankPeer a = routing.peers().get(hop.from());
    RankPeer b = routing.peers().get(hop.to());
    return a.rank() + "[" + a.device() + "] -> " + b.rank() + "[" + b.device() + "]";
  }

  static String via(PeerRouting routing, Hop hop, Paths paths) {
    RankPeer a = routing.peers().get(hop.from());
    RankPeer b = routing.peers().get(hop.to());
    return switch (hop.transport()) {
      case P2P_IPC -> "P2P/IPC over " + known(paths.between(a.device(), b.device()));
      case SHM_STAGED ->
          "SHM/staged over PCI (device <-> pinned host memory; " + hop.reason() + ")";
      case NET_SOCKET ->
          "NET/Socket over NET (staged through pinned host memory; rank "
              + b.rank()
              + " is on host "
              + b.host()
              + ")";
    };
  }

  private static String known(String path) {
    return path == null ? "an unknown path (topology not discovered)" : path;
  }

  /** The direct path a staged hop forgoes, when the topology shows NVLink or PCIe P2P. */
  private static String directPath(PeerRouting routing, Hop hop, Paths paths) {
    String p =
        paths.between(
            routing.peers().get(hop.from()).device(), routing.peers().get(hop.to()).device());
    return p != null && (p.startsWith("NVL") || p.startsWith("PIX") || p.startsWith("PXB"))
        ? p
        : null;
  }

  private static String fix(PeerRouting routing, Hop hop) {
    String r = hop.reason();
    if (r.startsWith(PeerAccessSettings.P2P_DISABLE_PAIRS)) {
      return "remove the pair from " + PeerAccessSettings.P2P_DISABLE_PAIRS + " to use peer access";
    }
    if (r.endsWith("=1")) {
      return "unset " + r.substring(0, r.length() - 2) + " to use peer access";
    }
    if (r.startsWith("whole group staged")) {
      return "no ring through peer pairs avoids that pair (allReduce needs one: with 3 or more GPUs"
          + " on one host, each GPU needs peer access to at least two others)";
    }
    return "the driver refuses peer access between them (check IOMMU / ACS settings, or the"
        + " virtual machine's GPU passthrough)";
  }
}
