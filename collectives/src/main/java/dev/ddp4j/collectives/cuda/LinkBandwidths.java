package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * The bandwidth between the GPUs of a cuda group whose ring must avoid some pairs, so that {@link
 * PeerRing} can keep the ring on the widest links. Rank 0 reads it from its host's topology (the
 * discovered one, or {@code DDP4J_TOPO_FILE}) and publishes it through the store; every rank uses
 * rank 0's numbers, so all choose the same ring even where a rank sees only its own GPU.
 */
final class LinkBandwidths {

  private LinkBandwidths() {}

  /**
   * {@code gbps[i][j]} from rank i's GPU to rank j's, -1 where unknown; collective over the group.
   *
   * @param busIds every rank's PCI bus id, as the CUDA driver gives it
   */
  static double[][] agree(Store store, String prefix, int rank, String[] busIds, Duration timeout) {
    String key = prefix + "/gbps";
    if (rank == 0) {
      store.set(key, encode(fromTopology(hostTopology(), busIds)).getBytes(StandardCharsets.UTF_8));
    }
    return decode(new String(store.get(key, timeout), StandardCharsets.UTF_8), busIds.length);
  }

  /** Route bandwidths between the GPUs with these bus ids; -1 where {@code t} lacks one. */
  static double[][] fromTopology(Topology t, String[] busIds) {
    int n = busIds.length;
    int[] device = new int[n];
    for (int r = 0; r < n; r++) {
      device[r] = t == null ? -1 : deviceOf(t, busIds[r]);
    }
    double[][] gbps = new double[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        boolean known = device[a] >= 0 && device[b] >= 0 && device[a] != device[b];
        gbps[a][b] = known ? t.route(device[a], device[b]).gbps() : -1;
      }
    }
    return gbps;
  }

  private static int deviceOf(Topology t, String busId) {
    String want = busId.trim().toLowerCase(Locale.ROOT);
    for (int i = 0; i < t.deviceCount(); i++) {
      if (t.device(i).attr("busid", "").toLowerCase(Locale.ROOT).equals(want)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * This host's topology as discovery (or {@code DDP4J_TOPO_FILE}) finds it, or null where that
   * fails: then every ring through peer pairs counts as equal, and route lines name no path.
   */
  static Topology hostTopology() {
    try {
      return TopologyDiscovery.discover(1).topology();
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
  }

  static String encode(double[][] gbps) {
    StringBuilder b = new StringBuilder();
    for (double[] row : gbps) {
      for (int j = 0; j < row.length; j++) {
        b.append(j == 0 ? "" : " ").append(row[j]);
      }
      b.append('\n');
    }
    return b.toString();
  }

  static double[][] decode(String text, int n) {
    String[] rows = text.split("\n");
    double[][] gbps = new double[n][n];
    for (int i = 0; i < n; i++) {
      String[] f = rows[i].trim().split(" ");
      for (int j = 0; j < n; j++) {
        gbps[i][j] = Double.parseDouble(f[j]);
      }
    }
    return gbps;
  }
}
