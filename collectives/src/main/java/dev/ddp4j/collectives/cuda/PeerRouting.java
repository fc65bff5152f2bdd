package dev.ddp4j.collectives.cuda;

import java.util.List;

/**
 * How each pair of ranks of a cuda group reaches the other, decided the same way on every rank from
 * what every rank published ({@link PeerDirectory}): CUDA IPC peer memory where both GPUs share a
 * host and peer access is allowed, else host staging (shared memory on one host, sockets between
 * hosts). The group as a whole then runs in one {@link Mode}: every pair has a peer path ({@link
 * Mode#DIRECT}); some pairs lack one but a ring through peer pairs exists on one host ({@link
 * Mode#RING}: every collective runs a ring kernel over IPC); or no such ring exists and the whole
 * group is staged ({@link Mode#STAGED}, and {@link #effective} says so with the pair that caused
 * it).
 */
public final class PeerRouting {

  /** How the group as a whole runs. */
  public enum Mode {
    /** Every pair has a peer path: every kernel over IPC. */
    DIRECT,
    /**
     * Some pairs lack a peer path, but {@link #ring()} goes through peer pairs only: every
     * collective runs a ring kernel over IPC (each rank opens only its successor's scratch).
     */
    RING,
    /** No ring through peer pairs (or other hosts): everything through host memory. */
    STAGED
  }

  /** How data crosses one hop. */
  public enum Transport {
    /** ddp4j's kernels writing into the peer GPU's memory. */
    P2P_IPC,
    /** device to pinned host memory, the cpu backend's shared memory, back to the device. */
    SHM_STAGED,
    /** device to pinned host memory, the cpu backend's sockets to the other host, back. */
    NET_SOCKET
  }

  /** One rank as it published itself: its host identity and CUDA device ordinal. */
  public record RankPeer(int rank, String host, int device) {}

  /** One directed hop and why it goes the way it goes (empty reason for peer access). */
  public record Hop(int from, int to, Transport transport, String reason) {}

  private final List<RankPeer> peers;
  private final Hop[][] pairwise;
  private final Hop firstStaged;
  private final int[] ring;

  /** A ring around the missing pairs was looked for (one host, 3 or more ranks, not all off). */
  private final boolean ringSearched;

  private PeerRouting(
      List<RankPeer> peers, Hop[][] pairwise, Hop firstStaged, int[] ring, boolean ringSearched) {
    this.peers = peers;
    this.pairwise = pairwise;
    this.firstStaged = firstStaged;
    this.ring = ring;
    this.ringSearched = ringSearched;
  }

  /**
   * Decides every pair.
   *
   * @param peers every rank, index = rank
   * @param canAccess {@code canAccess[i][j]}: 1 if rank i's GPU may access rank j's as a peer
   *     (cuDeviceCanAccessPeer), 0 if not, -1 where rank i could not ask (other host, GPU not
   *     visible to it)
   */
  public static PeerRouting decide(
      List<RankPeer> peers, int[][] canAccess, PeerAccessSettings settings) {
    return decide(peers, canAccess, settings, null);
  }

  /**
   * As above; where a ring must avoid some pairs, {@code gbps[i][j]} (rank i's GPU to rank j's,
   * negative where unknown; null: all unknown) picks the ring whose slowest hop is fastest.
   */
  public static PeerRouting decide(
      List<RankPeer> peers, int[][] canAccess, PeerAccessSettings settings, double[][] gbps) {
    int n = peers.size();
    Hop[][] hops = new Hop[n][n];
    Hop first = null;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        if (i == j) {
          continue;
        }
        RankPeer a = peers.get(i);
        RankPeer b = peers.get(j);
        Hop h;
        if (!a.host().equals(b.host())) {
          h = new Hop(i, j, Transport.NET_SOCKET, "other host");
        } else if (settings.allDisabled()) {
          h = new Hop(i, j, Transport.SHM_STAGED, settings.allSource() + "=1");
        } else if (settings.pairDisabled(a.device(), b.device())) {
          h =
              new Hop(
                  i,
                  j,
                  Transport.SHM_STAGED,
                  PeerAccessSettings.P2P_DISABLE_PAIRS
                      + " lists "
                      + PeerAccessSettings.key(a.device(), b.device()));
        } else if (canAccess[i][j] == 0 || canAccess[j][i] == 0) {
          h =
              new Hop(
                  i,
                  j,
                  Transport.SHM_STAGED,
                  "cuDeviceCanAccessPeer(" + a.device() + ", " + b.device() + ") = 0");
        } else {
          h = new Hop(i, j, Transport.P2P_IPC, "");
        }
        hops[i][j] = h;
        if (first == null && h.transport() != Transport.P2P_IPC) {
          first = h;
        }
      }
    }
    int[] ring = null;
    boolean searched = first != null && !settings.allDisabled() && oneHost(peers) && n >= 3;
    if (searched) {
      boolean[][] peer = new boolean[n][n];
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          peer[i][j] = i != j && hops[i][j].transport() == Transport.P2P_IPC;
        }
      }
      ring = PeerRing.find(peer, gbps);
    }
    return new PeerRouting(List.copyOf(peers), hops, first, ring, searched);
  }

  private static boolean oneHost(List<RankPeer> peers) {
    return peers.stream().map(RankPeer::host).distinct().count() == 1;
  }

  /** How the group runs as a whole. */
  public Mode mode() {
    return firstStaged == null ? Mode.DIRECT : ring != null ? Mode.RING : Mode.STAGED;
  }

  /**
   * True when the group runs wholly host-staged (some pair has no peer path and no ring avoids it).
   */
  public boolean staged() {
    return mode() == Mode.STAGED;
  }

  /** A pair without a peer path (the first in rank order), or null when every pair has one. */
  public Hop firstStaged() {
    return firstStaged;
  }

  /**
   * In {@link Mode#RING}, the ring all-reduce's rank order (starting at rank 0) through peer pairs
   * only; null in the other modes.
   */
  public int[] ring() {
    return ring == null ? null : ring.clone();
  }

  /**
   * The pairs (a < b) without a peer path, each with why, in rank order: what a {@link Mode#RING}
   * ring avoids.
   */
  public List<Hop> missingPairs() {
    List<Hop> out = new java.util.ArrayList<>();
    for (int i = 0; i < size(); i++) {
      for (int j = i + 1; j < size(); j++) {
        if (pairwise[i][j].transport() != Transport.P2P_IPC) {
          out.add(pairwise[i][j]);
        }
      }
    }
    return out;
  }

  /** How the pair could go on its own. */
  public Hop pairwise(int from, int to) {
    return pairwise[from][to];
  }

  /**
   * How the pair goes in this group: staged as a whole group when some pair has no peer path and no
   * ring avoids it.
   */
  public Hop effective(int from, int to) {
    Hop h = pairwise[from][to];
    if (staged() && h.transport() == Transport.P2P_IPC) {
      Hop f = firstStaged;
      return new Hop(
          from,
          to,
          Transport.SHM_STAGED,
          "whole group staged since ranks "
              + f.from()
              + " and "
              + f.to()
              + " have no peer path ("
              + f.reason()
              + ")"
              + (ringSearched ? " and no ring through peer pairs avoids them" : ""));
    }
    return h;
  }

  public List<RankPeer> peers() {
    return peers;
  }

  public int size() {
    return peers.size();
  }
}
