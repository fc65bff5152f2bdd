package dev.ddp4j.launcher.doctor;

import dev.ddp4j.launcher.NumaBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * NUMA: whether the launcher can bind each worker to its GPU's node ({@code numactl --cpunodebind=N
 * --membind=N}, where sysfs knows the node and numactl is on the PATH), and the CPUs that binding
 * gives each GPU's workers.
 */
final class NumaCheck {

  static final String NAME = "numa";

  private NumaCheck() {}

  static List<Finding> check(Machine m, GpuInventory inv) {
    int nodes = nodeCount(m.sysRoot());
    Optional<Path> numactl = m.executable("numactl");
    if (inv.gpus().isEmpty()) {
      return List.of(
          Finding.ok(
              NAME,
              nodes
                  + " NUMA node(s); no GPU, so the launcher binds no worker"
                  + (numactl.isPresent() ? "" : " (numactl is not on the PATH)")));
    }
    Map<Integer, List<Integer>> gpusByNode = new TreeMap<>();
    for (GpuInventory.Gpu g : inv.gpus()) {
      int node = g.busId().isEmpty() ? -1 : NumaBinding.numaNodeOf(m.sysRoot(), g.busId());
      gpusByNode.computeIfAbsent(node, k -> new ArrayList<>()).add(g.ordinal());
    }
    List<String> parts = new ArrayList<>();
    gpusByNode.forEach(
        (node, gpus) ->
            parts.add(
                "GPU "
                    + join(gpus)
                    + (node < 0
                        ? " on an unknown node"
                        : " on node " + node + " (CPUs " + cpuList(m.sysRoot(), node) + ")")));
    String saw = nodes + " NUMA node(s): " + String.join(", ", parts);
    boolean unknown = gpusByNode.containsKey(-1);
    if (nodes > 1 && numactl.isEmpty()) {
      return List.of(
          Finding.warn(
              NAME,
              saw + "; numactl is not on the PATH, so workers run unbound and may cross sockets",
              "install numactl (apt-get install numactl) or put it on the PATH"));
    }
    if (nodes > 1 && unknown) {
      return List.of(
          Finding.warn(
              NAME,
              saw + "; sysfs gives no NUMA node for some GPUs, so their workers run unbound",
              "check /sys/bus/pci/devices/<bus id>/numa_node (a VM may hide it); or bind by hand"));
    }
    return List.of(
        Finding.ok(
            NAME,
            saw
                + (numactl.isPresent() && !unknown
                    ? "; workers bound with numactl --cpunodebind=N --membind=N (off: --no-numa-bind)"
                    : "; one node: no binding needed")));
  }

  private static int nodeCount(Path sys) {
    Path nodes = sys.resolve("devices/system/node");
    if (!Files.isDirectory(nodes)) {
      return 1;
    }
    try (Stream<Path> s = Files.list(nodes)) {
      return (int)
          Math.max(1, s.filter(p -> p.getFileName().toString().matches("node\\d+")).count());
    } catch (IOException e) {
      return 1;
    }
  }

  private static String cpuList(Path sys, int node) {
    try {
      return Files.readString(sys.resolve("devices/system/node/node" + node + "/cpulist")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String join(List<Integer> ids) {
    return ids.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("");
  }
}
