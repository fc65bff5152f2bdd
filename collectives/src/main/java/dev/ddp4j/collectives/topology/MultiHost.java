package dev.ddp4j.collectives.topology;

import java.util.Map;

/**
 * Joins the hosts of a job: every NIC gets a NET link into one network vertex; a host without a NIC
 * gets a default 100 Gb/s one under its first CPU, so a job's hosts are always connected.
 */
public final class MultiHost {

  private MultiHost() {}

  /** The job's topology: {@code hosts} in host order, joined through the network. */
  public static Topology join(java.util.List<Topology> hosts) {
    TopologyBuilder b = new TopologyBuilder();
    for (int h = 0; h < hosts.size(); h++) {
      b.addAll(hosts.get(h), h);
    }
    connectNics(b);
    return b.build();
  }

  /** Adds the network vertex and a NET link from every NIC (adding NICs where a host has none). */
  static void connectNics(TopologyBuilder b) {
    int hosts = 0;
    for (int i = 0; i < b.nodeCount(); i++) {
      hosts = Math.max(hosts, b.get(i).host() + 1);
    }
    boolean[] hasNic = new boolean[hosts];
    int[] firstCpu = new int[hosts];
    java.util.Arrays.fill(firstCpu, -1);
    int count = b.nodeCount();
    for (int i = 0; i < count; i++) {
      Node n = b.get(i);
      if (n.type() == NodeType.NIC) {
        hasNic[n.host()] = true;
      } else if (n.type() == NodeType.CPU && firstCpu[n.host()] < 0) {
        firstCpu[n.host()] = i;
      }
    }
    for (int h = 0; h < hosts; h++) {
      if (!hasNic[h] && firstCpu[h] >= 0) {
        int nic = b.node(NodeType.NIC, "nic0", h, Map.of("gbps", "12.5", "assumed", "true"));
        b.link(nic, firstCpu[h], LinkType.PCI, 16, Bandwidths.PCIE_GEN4_X16_GBPS);
      }
    }
    int net = b.node(NodeType.NET, "NET", -1);
    for (int i = 0; i < b.nodeCount(); i++) {
      Node n = b.get(i);
      if (n.type() == NodeType.NIC) {
        double gbps = Double.parseDouble(n.attr("gbps", "12.5"));
        b.link(i, net, LinkType.NET, 1, gbps);
      }
    }
  }
}
