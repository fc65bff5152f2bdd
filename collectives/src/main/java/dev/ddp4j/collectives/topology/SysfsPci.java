package dev.ddp4j.collectives.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the PCI tree above devices from sysfs. {@code /sys/bus/pci/devices/<busid>} links to {@code
 * /sys/devices/pci<domain>:<bus>/<root port>/<switch up>/<switch down>/.../<busid>}: the path names
 * the chain of bridges. The root port belongs to its host bridge (like NCCL, a GPU on a root port
 * hangs off the CPU); each switch's upstream port and the downstream port below it are one switch.
 * Link speed and width come from each device's {@code current_link_speed} / {@code
 * current_link_width} (the link to its parent), the socket from {@code numa_node}.
 */
public final class SysfsPci {

  private final Path sysRoot;
  private final TopologyBuilder b;
  private final Map<Integer, Integer> cpus = new HashMap<>();
  private final Map<String, Integer> bridges = new HashMap<>();

  /**
   * @param sysRoot where sysfs is mounted ({@code /sys}; tests pass a copy)
   */
  SysfsPci(Path sysRoot, TopologyBuilder b) {
    this.sysRoot = sysRoot;
    this.b = b;
  }

  /** The chain of bus ids from the root port down to {@code busId}, or empty if not in sysfs. */
  Optional<List<String>> chain(String busId) {
    Path link = sysRoot.resolve("bus/pci/devices").resolve(busId);
    if (!Files.exists(link)) {
      return Optional.empty();
    }
    try {
      Path real = link.toRealPath();
      List<String> out = new ArrayList<>();
      for (Path p : real) {
        out.add(p.toString());
      }
      int root = -1;
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).startsWith("pci")) {
          root = i;
        }
      }
      return Optional.of(out.subList(root, out.size()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The CPU vertex of a NUMA node, created with SYS links to the other sockets on first use. */
  int cpu(int numa) {
    return cpus.computeIfAbsent(
        numa,
        k -> {
          int id = b.node(NodeType.CPU, "CPU" + k, 0, Map.of("numaid", Integer.toString(k)));
          for (Map.Entry<Integer, Integer> other : cpus.entrySet()) {
            b.link(other.getValue(), id, LinkType.SYS, 1, Bandwidths.SYS_GBPS);
          }
          return id;
        });
  }

  /**
   * Adds the bridges above {@code busId} and returns the vertex the device should link to, with the
   * device's own link width and bandwidth; falls back to CPU0 where sysfs lacks the device.
   */
  Attachment attach(String busId) {
    Optional<List<String>> chain = chain(busId);
    String dev = busId;
    int numa = readInt(busId, "numa_node", 0);
    int parent;
    if (chain.isEmpty()) {
      parent = cpu(Math.max(0, numa));
    } else {
      List<String> c = chain.get();
      int cpu = cpu(Math.max(0, numa));
      String hbName = c.get(0);
      parent =
          bridges.computeIfAbsent(
              hbName,
              k -> {
                int id = b.node(NodeType.HOST_BRIDGE, k, 0);
                b.link(id, cpu, LinkType.PCI, 16, Bandwidths.HOST_BRIDGE_GBPS);
                return id;
              });
      // c = [pciDDDD:BB, rootPort, up1, down1, up2, down2, ..., device]
      for (int i = 2; i < c.size() - 1; i += 2) {
        String up = c.get(i);
        int above = parent;
        parent =
            bridges.computeIfAbsent(
                up,
                k -> {
                  int id = b.node(NodeType.PCI_SWITCH, k, 0, Map.of("busid", k));
                  int width = readInt(k, "current_link_width", 16);
                  b.link(id, above, LinkType.PCI, width, gbps(k));
                  return id;
                });
      }
    }
    return new Attachment(
        parent, readInt(dev, "current_link_width", 16), gbps(dev), Math.max(0, numa));
  }

  /** Where a device hangs in the tree and its own link. */
  record Attachment(int parent, int width, double gbps, int numa) {}

  private double gbps(String busId) {
    String speed = read(busId, "current_link_speed").orElse("16.0 GT/s PCIe");
    double gts;
    try {
      gts = Double.parseDouble(speed.trim().split("\\s+")[0]);
    } catch (NumberFormatException e) {
      gts = 16.0;
    }
    return Bandwidths.pcieGbps(gts, readInt(busId, "current_link_width", 16));
  }

  private Optional<String> read(String busId, String file) {
    try {
      return Optional.of(
          Files.readString(sysRoot.resolve("bus/pci/devices").resolve(busId).resolve(file)).trim());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private int readInt(String busId, String file, int fallback) {
    try {
      return read(busId, file).map(s -> Integer.parseInt(s.trim())).orElse(fallback);
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  /** {@code 00000000:18:00.0} (NVML) or {@code 0000:18:00.0} (CUDA) as sysfs spells it. */
  static String normalizeBusId(String busId) {
    String id = busId.trim().toLowerCase(java.util.Locale.ROOT);
    if (id.indexOf(':') == id.lastIndexOf(':')) {
      id = "0000:" + id;
    }
    int colon = id.indexOf(':');
    if (colon > 4) {
      id = id.substring(colon - 4);
    } else if (colon >= 0 && colon < 4) {
      id = "0".repeat(4 - colon) + id;
    }
    return id;
  }
}
