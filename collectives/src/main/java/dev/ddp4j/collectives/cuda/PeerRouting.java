package dev.ddp4j.collectives.cuda;

import java.util.List;

/**
 * How each pair of ranks of a cuda group can reach the other, decided the same way on every rank
 * from what every rank published ({@link PeerDirectory}): CUDA IPC peer memory where both GPUs
 * share a host and peer access is allowed, else host staging (shared memory on one host, sockets
 * between hosts). What the group then runs is the planner's decision over these pairs ({@link
 * GpuPlanning}): the planner's rings keep to peer pairs, and its direct algorithms need every pair.
 */
public final class PeerRouting {

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

  private PeerRouting(List<RankPeer> peers, Hop[][] pairwise) {
    this.peers = peers;
    this.pairwise = pairwise;
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
    int n = peers.size();
    Hop[][] hops = new Hop[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        RankPeer a = peers.get(i);
        RankPeer b = peers.get(j);
        Hop h;
        if (i == j) {
          h = new Hop(i, j, Transport.P2P_IPC, "");
        } else if (!a.host().equals(b.host())) {
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
      }
    }
    return new PeerRouting(List.copyOf(peers), hops);
  }

  /** How the pair goes: IPC where it has a peer path, else why not. */
  public Hop pairwise(int from, int to) {
    return pairwise[from][to];
  }

  /** Whether data from {@code from} to {@code to} can go over CUDA IPC. */
  public boolean peerHop(int from, int to) {
    return from == to || pairwise(from, to).transport() == Transport.P2P_IPC;
  }

  /** Whether every rank runs on one host (so hops without peer access can use host memory). */
  public boolean oneHost() {
    return peers.stream().map(RankPeer::host).distinct().count() == 1;
  }

  /** The hops of {@code ring} without a peer path, as {@code 1->2, 3->0}. */
  public String hostHopsOn(int[] ring) {
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < ring.length; i++) {
      int a = ring[i];
      int b = ring[(i + 1) % ring.length];
      if (!peerHop(a, b)) {
        out.add(a + "->" + b);
      }
    }
    return String.join(", ", out);
  }

  /** Whether every hop of {@code ring} (the last back to the first included) has a peer path. */
  public boolean peerRing(int[] ring) {
    for (int i = 0; i < ring.length; i++) {
      if (pairwise(ring[i], ring[(i + 1) % ring.length]).transport() != Transport.P2P_IPC) {
        return false;
      }
    }
    return true;
  }

  /** The first pair without a peer path, or null where every pair has one. */
  public Hop firstStaged() {
    for (Hop[] row : pairwise) {
      for (Hop h : row) {
        if (h.transport() != Transport.P2P_IPC) {
          return h;
        }
      }
    }
    return null;
  }

  /**
   * The pairs among {@code members} only, renumbered: member {@code i} is rank {@code i} of the
   * result (a sub-group of the hierarchical route).
   */
  public PeerRouting among(int[] members) {
    int n = members.length;
    List<RankPeer> sub = new java.util.ArrayList<>();
    Hop[][] hops = new Hop[n][n];
    for (int i = 0; i < n; i++) {
      RankPeer p = peers.get(members[i]);
      sub.add(new RankPeer(i, p.host(), p.device()));
      for (int j = 0; j < n; j++) {
        Hop h = pairwise[members[i]][members[j]];
        hops[i][j] = new Hop(i, j, h.transport(), h.reason());
      }
    }
    return new PeerRouting(List.copyOf(sub), hops);
  }

  public List<RankPeer> peers() {
    return peers;
  }

  public int size() {
    return peers.size();
  }
}
