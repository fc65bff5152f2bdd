package dev.ddp4j.collectives.topology;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * Reads NCCL's topology XML ({@code NCCL_TOPO_FILE}, {@code NCCL_TOPO_DUMP_FILE}): {@code
 * <system><cpu><pci><gpu><nvlink/></gpu></pci><nic><net/></nic></cpu></system>}. A {@code
 * <systems>} root holding one {@code <system>} per host is ddp4j's multi-host form; a {@code
 * <cpurank dev=".."/>} under a {@code <cpu>} is a CPU worker slot. NVLinks whose target is not a
 * GPU of the file (NVSwitch, {@code tclass 0x068000}) go to one NVSwitch vertex per host.
 */
public final class NcclTopoXmlReader {

  private final TopologyBuilder b = new TopologyBuilder();
  private final Map<String, Integer> gpuByBusId = new HashMap<>();
  private final List<String[]> nvlinks = new ArrayList<>();
  private int host;

  private NcclTopoXmlReader() {}

  /** Parses the XML text. */
  public static Topology parse(String xml) {
    Element root;
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      root =
          f.newDocumentBuilder()
              .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)))
              .getDocumentElement();
    } catch (Exception e) {
      throw new IllegalArgumentException("not a topology XML file: " + e.getMessage(), e);
    }
    NcclTopoXmlReader r = new NcclTopoXmlReader();
    if (root.getTagName().equals("systems")) {
      List<Element> systems = children(root, "system");
      for (Element s : systems) {
        r.readSystem(s);
        r.host++;
      }
      if (r.host > 1) {
        MultiHost.connectNics(r.b);
      }
    } else if (root.getTagName().equals("system")) {
      r.readSystem(root);
    } else {
      throw new IllegalArgumentException(
          "topology XML root is <" + root.getTagName() + "> (expected: <system> or <systems>)");
    }
    return r.b.build();
  }

  private void readSystem(Element system) {
    gpuByBusId.clear();
    nvlinks.clear();
    List<Integer> cpus = new ArrayList<>();
    for (Element cpu : children(system, "cpu")) {
      int numa =
          Integer.parseInt(cpu.getAttribute("numaid").isEmpty() ? "0" : cpu.getAttribute("numaid"));
      int id = b.node(NodeType.CPU, "CPU" + numa, host, attrs(cpu));
      cpus.add(id);
      readChildren(cpu, id, numa);
    }
    for (int i = 0; i < cpus.size(); i++) {
      for (int j = i + 1; j < cpus.size(); j++) {
        b.link(cpus.get(i), cpus.get(j), LinkType.SYS, 1, Bandwidths.SYS_GBPS);
      }
    }
    int nvswitch = -1;
    for (String[] nv : nvlinks) {
      int from = gpuByBusId.get(nv[0]);
      int count = Integer.parseInt(nv[2]);
      double gbps = count * Bandwidths.nvlinkGbpsPerLink(b.get(from).intAttr("sm", 80));
      Integer to = gpuByBusId.get(nv[1].toLowerCase());
      if (to != null && !nv[3].equals("0x068000")) {
        if (from < to) {
          b.link(from, to, LinkType.NVL, count, gbps);
        }
      } else {
        if (nvswitch < 0) {
          nvswitch = b.node(NodeType.NVSWITCH, "NVS0", host, Map.of("busid", nv[1]));
        }
        b.link(from, nvswitch, LinkType.NVL, count, gbps);
      }
    }
  }

  private void readChildren(Element parentEl, int parent, int numa) {
    for (Element e : children(parentEl, null)) {
      switch (e.getTagName()) {
        case "pci" -> readPci(e, parent, numa);
        case "nic" -> readNic(e, parent, numa, pcieGbps(e), 16);
        case "cpurank" -> {
          Map<String, String> a = attrs(e);
          a.put("numaid", Integer.toString(numa));
          int id = b.node(NodeType.CPU_RANK, "CPU" + numa + "." + e.getAttribute("dev"), host, a);
          b.link(id, parent, LinkType.LOC, 1, Bandwidths.LOC_GBPS);
        }
        default -> {}
      }
    }
  }

  private void readPci(Element pci, int parent, int numa) {
    double gbps = pcieGbps(pci);
    int width = widthOf(pci);
    List<Element> gpus = children(pci, "gpu");
    List<Element> nics = children(pci, "nic");
    if (!gpus.isEmpty()) {
      Element gpu = gpus.get(0);
      Map<String, String> a = attrs(gpu);
      String busId = pci.getAttribute("busid").toLowerCase();
      a.put("busid", busId);
      a.put("numaid", Integer.toString(numa));
      int id = b.node(NodeType.GPU, "GPU" + gpu.getAttribute("dev"), host, a);
      b.link(id, parent, LinkType.PCI, width, gbps);
      gpuByBusId.put(busId, id);
      for (Element nv : children(gpu, "nvlink")) {
        nvlinks.add(
            new String[] {
              busId, nv.getAttribute("target"), nv.getAttribute("count"), nv.getAttribute("tclass")
            });
      }
    } else if (!nics.isEmpty()) {
      for (Element nic : nics) {
        readNic(nic, parent, numa, gbps, width);
      }
    } else {
      Map<String, String> a = attrs(pci);
      int id = b.node(NodeType.PCI_SWITCH, pci.getAttribute("busid").toLowerCase(), host, a);
      b.link(id, parent, LinkType.PCI, width, gbps);
      readChildren(pci, id, numa);
    }
  }

  private void readNic(Element nic, int parent, int numa, double pciGbps, int width) {
    for (Element net : children(nic, "net")) {
      Map<String, String> a = attrs(net);
      a.put("numaid", Integer.toString(numa));
      double speedMbps =
          net.getAttribute("speed").isEmpty()
              ? 100000
              : Double.parseDouble(net.getAttribute("speed"));
      a.put("gbps", Double.toString(speedMbps / 8000.0));
      int id = b.node(NodeType.NIC, net.getAttribute("name"), host, a);
      b.link(id, parent, LinkType.PCI, width, pciGbps);
    }
  }

  private static int widthOf(Element pci) {
    String w = pci.getAttribute("link_width");
    return w.isEmpty() || w.equals("0") ? 16 : Integer.parseInt(w.trim());
  }

  private static double pcieGbps(Element pci) {
    String speed = pci.getAttribute("link_speed").trim();
    double gts = 16.0;
    if (!speed.isEmpty() && !speed.startsWith("Unknown")) {
      gts = Double.parseDouble(speed.split("\\s+")[0]);
    }
    return Bandwidths.pcieGbps(gts, widthOf(pci));
  }

  private static Map<String, String> attrs(Element e) {
    Map<String, String> out = new HashMap<>();
    NamedNodeMap m = e.getAttributes();
    for (int i = 0; i < m.getLength(); i++) {
      out.put(m.item(i).getNodeName(), m.item(i).getNodeValue());
    }
    return out;
  }

  static List<Element> children(Element e, String tag) {
    List<Element> out = new ArrayList<>();
    for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
      if (c instanceof Element el && (tag == null || el.getTagName().equals(tag))) {
        out.add(el);
      }
    }
    return out;
  }
}
