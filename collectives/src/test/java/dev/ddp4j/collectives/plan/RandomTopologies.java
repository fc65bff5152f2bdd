package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Bandwidths;
import dev.ddp4j.collectives.topology.LinkType;
import dev.ddp4j.collectives.topology.NodeType;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyBuilder;
import java.util.Map;
import java.util.Random;

/**
 * Machines nobody built but that could exist: 1-2 sockets, GPUs spread over PCIe switches of random
 * widths, random NVLink pairs with random link counts, sometimes an NVSwitch.
 */
final class RandomTopologies {

  private RandomTopologies() {}

  static Topology generate(long seed, int gpus) {
    Random rnd = new Random(seed);
    TopologyBuilder b = new TopologyBuilder();
    int sockets = 1 + rnd.nextInt(2);
    int[] cpu = new int[sockets];
    for (int s = 0; s < sockets; s++) {
      cpu[s] = b.node(NodeType.CPU, "CPU" + s, 0, Map.of("numaid", Integer.toString(s)));
      if (s > 0) {
        b.link(cpu[0], cpu[s], LinkType.SYS, 1, 10 + rnd.nextInt(30));
      }
    }
    int switches = 1 + rnd.nextInt(gpus);
    int[] sw = new int[switches];
    for (int i = 0; i < switches; i++) {
      sw[i] = b.node(NodeType.PCI_SWITCH, "SW" + i, 0);
      int width = rnd.nextBoolean() ? 16 : 8;
      b.link(sw[i], cpu[rnd.nextInt(sockets)], LinkType.PCI, width, Bandwidths.pcieGbps(16, width));
    }
    int[] gpu = new int[gpus];
    for (int g = 0; g < gpus; g++) {
      gpu[g] = b.node(NodeType.GPU, "GPU" + g, 0, Map.of("dev", Integer.toString(g)));
      b.link(gpu[g], sw[rnd.nextInt(switches)], LinkType.PCI, 16, Bandwidths.PCIE_GEN4_X16_GBPS);
    }
    if (rnd.nextInt(4) == 0) {
      int nvs = b.node(NodeType.NVSWITCH, "NVS0", 0);
      for (int g = 0; g < gpus; g++) {
        if (rnd.nextInt(5) > 0) {
          int lanes = 2 + rnd.nextInt(16);
          b.link(gpu[g], nvs, LinkType.NVL, lanes, lanes * 25.0);
        }
      }
    } else {
      int pairs = rnd.nextInt(gpus * 2);
      for (int p = 0; p < pairs; p++) {
        int a = rnd.nextInt(gpus);
        int c = rnd.nextInt(gpus);
        if (a != c) {
          int lanes = 1 + rnd.nextInt(4);
          b.link(gpu[a], gpu[c], LinkType.NVL, lanes, lanes * 25.0);
        }
      }
    }
    return b.build();
  }
}
