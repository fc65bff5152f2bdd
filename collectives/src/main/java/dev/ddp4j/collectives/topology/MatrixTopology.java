package dev.ddp4j.collectives.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Rebuilds a PCIe tree and NVLinks from nvidia-smi's path classes (see NvidiaSmiTopoParser). */
final class MatrixTopology {

  private final List<String> names;
  private final String[][] cells;
  private final String[] cpuAffinity;
  private final String[] numaText;
  private final Map<String, String> nicNames;
  private final int n;

  MatrixTopology(
      List<String> names,
      String[][] cells,
      String[] cpuAffinity,
      String[] numaText,
      Map<String, String> nicNames) {
    this.names = names;
    this.cells = cells;
    this.cpuAffinity = cpuAffinity;
    this.numaText = numaText;
    this.nicNames = nicNames;
    this.n = names.size();
  }

  Topology build() {
    int[] numa = numaNodes();
    TopologyBuilder b = new TopologyBuilder();
    Map<Integer, Integer> cpus = new TreeMap<>();
    for (int d = 0; d < n; d++) {
      cpus.putIfAbsent(numa[d], -1);
    }
    for (int numaId : cpus.keySet()) {
      Map<String, String> attrs = new HashMap<>();
      attrs.put("numaid", Integer.toString(numaId));
      for (int d = 0; d < n; d++) {
        if (numa[d] == numaId && cpuAffinity[d] != null && !cpuAffinity[d].equals("N/A")) {
          attrs.putIfAbsent("affinity", cpuAffinity[d]);
        }
      }
      cpus.put(numaId, b.node(NodeType.CPU, "CPU" + numaId, 0, attrs));
    }
    List<Integer> cpuIds = new ArrayList<>(cpus.values());
    for (int i = 0; i < cpuIds.size(); i++) {
      for (int j = i + 1; j < cpuIds.size(); j++) {
        b.link(cpuIds.get(i), cpuIds.get(j), LinkType.SYS, 1, Bandwidths.SYS_GBPS);
      }
    }
    int[] deviceIds = new int[n];
    int gpuOrdinal = 0;
    for (int d = 0; d < n; d++) {
      String name = names.get(d);
      boolean gpu = name.startsWith("GPU");
      Map<String, String> attrs = new HashMap<>();
      attrs.put("numaid", Integer.toString(numa[d]));
      if (gpu) {
        attrs.put("dev", Integer.toString(gpuOrdinal++));
      }
      String display = gpu ? name : nicNames.getOrDefault(name, name);
      deviceIds[d] = b.node(gpu ? NodeType.GPU : NodeType.NIC, display, 0, attrs);
    }
    buildPcie(b, numa, cpus, deviceIds);
    buildNvlinks(b, deviceIds);
    return b.build();
  }

  private String rel(int a, int c) {
    return cells[a][c];
  }

  private int[] numaNodes() {
    int[] numa = new int[n];
    Map<String, Integer> byAffinity = NvidiaSmiTopoParser.indexOf(cpuAffinity);
    UnionFind sameSocket = new UnionFind(n);
    for (int a = 0; a < n; a++) {
      for (int c = 0; c < n; c++) {
        String r = rel(a, c);
        if (r.equals("PIX") || r.equals("PXB") || r.equals("PHB") || r.equals("NODE")) {
          sameSocket.union(a, c);
        }
      }
    }
    for (int d = 0; d < n; d++) {
      if (numaText[d] != null && numaText[d].matches("\\d+")) {
        numa[d] = Integer.parseInt(numaText[d]);
      } else if (cpuAffinity[d] != null && byAffinity.containsKey(cpuAffinity[d])) {
        numa[d] = byAffinity.get(cpuAffinity[d]);
      } else {
        numa[d] = -1;
      }
    }
    // Devices without affinity columns (NICs, old drivers) join the socket of a PCIe neighbour.
    for (int d = 0; d < n; d++) {
      if (numa[d] < 0) {
        for (int o = 0; o < n; o++) {
          if (o != d && numa[o] >= 0 && sameSocket.find(o) == sameSocket.find(d)) {
            numa[d] = numa[o];
            break;
          }
        }
      }
      if (numa[d] < 0) {
        numa[d] = 0;
      }
    }
    return numa;
  }

  private void buildPcie(TopologyBuilder b, int[] numa, Map<Integer, Integer> cpus, int[] ids) {
    UnionFind pix = new UnionFind(n);
    UnionFind pxb = new UnionFind(n);
    UnionFind phb = new UnionFind(n);
    boolean[] hasPxb = new boolean[n];
    for (int a = 0; a < n; a++) {
      for (int c = 0; c < n; c++) {
        String r = rel(a, c);
        if (r.equals("PIX")) {
          pix.union(a, c);
        }
        if (r.equals("PIX") || r.equals("PXB")) {
          pxb.union(a, c);
        }
        if (r.equals("PIX") || r.equals("PXB") || r.equals("PHB")) {
          phb.union(a, c);
        }
        hasPxb[a] |= r.equals("PXB");
      }
    }
    double x16 = Bandwidths.PCIE_GEN4_X16_GBPS;
    Map<Integer, Integer> hostBridges = new HashMap<>();
    Map<Integer, Integer> upper = new HashMap<>();
    Map<Integer, Integer> lower = new HashMap<>();
    for (int d = 0; d < n; d++) {
      int cpu = cpus.get(numa[d]);
      int hb =
          hostBridges.computeIfAbsent(
              phb.find(d),
              k -> {
                int id = b.node(NodeType.HOST_BRIDGE, "HB" + hostBridges.size(), 0);
                b.link(id, cpu, LinkType.PCI, 16, Bandwidths.HOST_BRIDGE_GBPS);
                return id;
              });
      int parent = hb;
      if (pxb.size(d) > pix.size(d) || (pxb.size(d) > 1 && hasPxb[d])) {
        parent =
            upper.computeIfAbsent(
                pxb.find(d), k -> switchUnder(b, hb, "PXB", upper.size() + lower.size(), x16));
      }
      if (pix.size(d) > 1 || hasPxb[d]) {
        int above = parent;
        parent =
            lower.computeIfAbsent(
                pix.find(d), k -> switchUnder(b, above, "PIX", upper.size() + lower.size(), x16));
      }
      b.link(ids[d], parent, LinkType.PCI, 16, x16);
    }
  }

  private static int switchUnder(TopologyBuilder b, int parent, String kind, int k, double gbps) {
    int id = b.node(NodeType.PCI_SWITCH, "SW" + k, 0, Map.of("kind", kind));
    b.link(id, parent, LinkType.PCI, 16, gbps);
    return id;
  }

  private void buildNvlinks(TopologyBuilder b, int[] ids) {
    int switchNode = -1;
    for (int a = 0; a < n; a++) {
      int total = 0;
      int peers = 0;
      int maxCount = 0;
      for (int c = 0; c < n; c++) {
        int k = NvidiaSmiTopoParser.nvlinks(rel(a, c));
        total += k;
        peers += k > 0 ? 1 : 0;
        maxCount = Math.max(maxCount, k);
      }
      // NV# to every peer adding up to more NVLinks than a GPU has: the peers sit behind NVSwitch.
      boolean behindSwitch = peers > 1 && total > NvidiaSmiTopoParser.MAX_DIRECT_NVLINKS;
      if (behindSwitch) {
        if (switchNode < 0) {
          switchNode = b.node(NodeType.NVSWITCH, "NVS0", 0);
        }
        double gbps = maxCount * Bandwidths.nvlinkGbpsPerLink(90);
        b.link(ids[a], switchNode, LinkType.NVL, maxCount, gbps);
        continue;
      }
      for (int c = a + 1; c < n; c++) {
        int k = NvidiaSmiTopoParser.nvlinks(rel(a, c));
        if (k > 0 && !peerBehindSwitch(c)) {
          b.link(ids[a], ids[c], LinkType.NVL, k, k * Bandwidths.nvlinkGbpsPerLink(90));
        }
      }
    }
  }

  private boolean peerBehindSwitch(int c) {
    int total = 0;
    int peers = 0;
    for (int o = 0; o < n; o++) {
      int k = NvidiaSmiTopoParser.nvlinks(rel(c, o));
      total += k;
      peers += k > 0 ? 1 : 0;
    }
    return peers > 1 && total > NvidiaSmiTopoParser.MAX_DIRECT_NVLINKS;
  }
}
