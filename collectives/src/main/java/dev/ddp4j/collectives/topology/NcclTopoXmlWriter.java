package dev.ddp4j.collectives.topology;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes a topology as NCCL's topology XML, so {@code DDP4J_TOPO_DUMP_FILE} output can be fed to
 * NCCL ({@code NCCL_TOPO_FILE}) and back to ddp4j. Host bridges are not an NCCL element: what hangs
 * below one is written under its CPU. Several hosts are written as {@code <systems>}.
 */
public final class NcclTopoXmlWriter {

  private final Topology t;
  private final int[] parent;
  private final StringBuilder out = new StringBuilder();

  private NcclTopoXmlWriter(Topology t) {
    this.t = t;
    this.parent = treeParents(t);
  }

  /** The XML text. */
  public static String write(Topology t) {
    NcclTopoXmlWriter w = new NcclTopoXmlWriter(t);
    boolean multi = t.hostCount() > 1;
    if (multi) {
      w.out.append("<systems>\n");
    }
    for (int h = 0; h < t.hostCount(); h++) {
      w.writeSystem(h, multi ? "  " : "");
    }
    if (multi) {
      w.out.append("</systems>\n");
    }
    return w.out.toString();
  }

  /** Parent of every vertex in the PCIe tree, found from the CPUs over PCI and LOC links. */
  private static int[] treeParents(Topology t) {
    int[] parent = new int[t.nodes().size()];
    Arrays.fill(parent, -2);
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    for (Node n : t.nodes()) {
      if (n.type() == NodeType.CPU) {
        parent[n.id()] = -1;
        queue.add(n.id());
      }
    }
    while (!queue.isEmpty()) {
      int u = queue.poll();
      for (int lid : t.linksOf(u)) {
        Link l = t.link(lid);
        int v = l.other(u);
        if ((l.type() == LinkType.PCI || l.type() == LinkType.LOC) && parent[v] == -2) {
          parent[v] = u;
          if (!t.node(v).type().isRankDevice() && t.node(v).type() != NodeType.NIC) {
            queue.add(v);
          }
        }
      }
    }
    return parent;
  }

  private void writeSystem(int host, String indent) {
    out.append(indent).append("<system version=\"1\">\n");
    for (Node n : t.nodes()) {
      if (n.type() == NodeType.CPU && n.host() == host) {
        Map<String, String> a = new java.util.TreeMap<>(n.attrs());
        a.putIfAbsent("numaid", n.name().replace("CPU", ""));
        open(indent + "  ", "cpu", a, false);
        writeChildren(n.id(), indent + "    ");
        out.append(indent).append("  </cpu>\n");
      }
    }
    out.append(indent).append("</system>\n");
  }

  private List<Integer> childrenOf(int id) {
    List<Integer> kids = new ArrayList<>();
    for (int lid : t.linksOf(id)) {
      int v = t.link(lid).other(id);
      if (parent[v] == id) {
        kids.add(v);
      }
    }
    return kids;
  }

  private void writeChildren(int id, String indent) {
    for (int v : childrenOf(id)) {
      Node n = t.node(v);
      Link up = linkBetween(v, id);
      switch (n.type()) {
        case HOST_BRIDGE -> writeChildren(v, indent);
        case PCI_SWITCH -> {
          open(indent, "pci", pciAttrs(busId(n), "0x060400", up), false);
          writeChildren(v, indent + "  ");
          out.append(indent).append("</pci>\n");
        }
        case GPU -> writeGpu(n, up, indent);
        case NIC -> {
          open(indent, "pci", pciAttrs(busId(n), "0x020000", up), false);
          out.append(indent).append("  <nic>\n");
          double speedMbps = Double.parseDouble(n.attr("gbps", "12.5")) * 8000;
          open(
              indent + "    ",
              "net",
              Map.of("name", n.name(), "speed", Long.toString(Math.round(speedMbps))),
              true);
          out.append(indent).append("  </nic>\n").append(indent).append("</pci>\n");
        }
        case CPU_RANK -> open(indent, "cpurank", Map.of("dev", n.attr("dev", "0")), true);
        default -> {}
      }
    }
  }

  private void writeGpu(Node n, Link up, String indent) {
    open(indent, "pci", pciAttrs(busId(n), "0x030200", up), false);
    Map<String, String> a = new java.util.TreeMap<>();
    a.put("dev", n.attr("dev", "0"));
    a.put("sm", n.attr("sm", "90"));
    a.put("rank", n.attr("rank", n.attr("dev", "0")));
    a.put("gdr", n.attr("gdr", "1"));
    open(indent + "  ", "gpu", a, false);
    for (int lid : t.linksOf(n.id())) {
      Link l = t.link(lid);
      if (l.type() == LinkType.NVL) {
        Node peer = t.node(l.other(n.id()));
        String tclass = peer.type() == NodeType.NVSWITCH ? "0x068000" : "0x030200";
        Map<String, String> nv = new java.util.TreeMap<>();
        nv.put("target", busId(peer));
        nv.put("count", Integer.toString(l.lanes()));
        nv.put("tclass", tclass);
        open(indent + "    ", "nvlink", nv, true);
      }
    }
    out.append(indent).append("  </gpu>\n").append(indent).append("</pci>\n");
  }

  private Link linkBetween(int a, int b) {
    for (int lid : t.linksOf(a)) {
      if (t.link(lid).other(a) == b) {
        return t.link(lid);
      }
    }
    throw new IllegalStateException("no link between " + a + " and " + b);
  }

  /** A vertex's PCI bus id, or a made-up stable one for vertices read from nvidia-smi's text. */
  private static String busId(Node n) {
    String id = n.attr("busid", null);
    if (id != null) {
      return id;
    }
    return n.name().matches("[0-9a-f]{4}:.*")
        ? n.name()
        : String.format("0000:%02x:%02x.0", 0x10 + n.id() % 0xe0, n.host() & 0x1f);
  }

  private static Map<String, String> pciAttrs(String busId, String cls, Link up) {
    Map<String, String> a = new java.util.LinkedHashMap<>();
    a.put("busid", busId);
    a.put("class", cls);
    double perLane = up.gbps() / Math.max(1, up.lanes());
    double gts = 2.5;
    for (double g : new double[] {2.5, 5.0, 8.0, 16.0, 32.0, 64.0}) {
      if (Math.abs(Bandwidths.pcieGbps(g, 1) - perLane)
          < Math.abs(Bandwidths.pcieGbps(gts, 1) - perLane)) {
        gts = g;
      }
    }
    a.put("link_speed", gts + " GT/s PCIe");
    a.put("link_width", Integer.toString(up.lanes()));
    return a;
  }

  private void open(String indent, String tag, Map<String, String> attrs, boolean selfClose) {
    out.append(indent).append('<').append(tag);
    attrs.forEach(
        (k, v) ->
            out.append(' ')
                .append(k)
                .append("=\"")
                .append(v.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;"))
                .append('"'));
    out.append(selfClose ? "/>\n" : ">\n");
  }
}
