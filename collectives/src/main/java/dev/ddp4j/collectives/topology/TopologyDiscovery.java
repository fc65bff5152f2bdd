package dev.ddp4j.collectives.topology;

import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds this machine's topology. In order:
 *
 * <ol>
 *   <li>{@code DDP4J_TOPO_FILE} (or {@code NCCL_TOPO_FILE}): an NCCL topology XML file or the text
 *       of {@code nvidia-smi topo -m}; replaces discovery;
 *   <li>GPUs from the CUDA driver (JCuda): bus id, compute capability, peer access; the PCI tree
 *       above them and the NICs from sysfs; NVLinks from NVML, or where NVML is missing from {@code
 *       nvidia-smi topo -m};
 *   <li>no GPU: {@code cpuRanks} CPU worker slots spread over the NUMA nodes, and the NICs.
 * </ol>
 *
 * {@code DDP4J_TOPO_DUMP_FILE} then receives what was found, as NCCL topology XML.
 */
public final class TopologyDiscovery {

  /**
   * @param topology what was found
   * @param notes how: the source of each part, and why a better source was not used
   */
  public record Result(Topology topology, List<String> notes) {}

  private TopologyDiscovery() {}

  /** Discovers with the process environment and the real {@code /sys}. */
  public static Result discover(int cpuRanks) {
    return discover(Settings.process(), Path.of("/sys"), cpuRanks);
  }

  /** Discovers reading variables from {@code env} and sysfs under {@code sysRoot}. */
  public static Result discover(Settings env, Path sysRoot, int cpuRanks) {
    List<String> notes = new ArrayList<>();
    Topology t;
    Optional<String> file = env.text("DDP4J_TOPO_FILE");
    if (file.isPresent()) {
      t = readFile(Path.of(file.get()));
      notes.add("topology read from " + file.get() + " (DDP4J_TOPO_FILE), not discovered");
    } else {
      List<GpuDiscovery.GpuInfo> gpus = GpuDiscovery.list(notes);
      if (!gpus.isEmpty()) {
        t = GpuDiscovery.discover(sysRoot, gpus, notes);
      } else {
        notes.add(cpuRanks + " CPU ranks");
        t = cpus(sysRoot, cpuRanks);
      }
    }
    Optional<String> dump = env.text("DDP4J_TOPO_DUMP_FILE");
    if (dump.isPresent()) {
      try {
        Files.writeString(Path.of(dump.get()), NcclTopoXmlWriter.write(t), StandardCharsets.UTF_8);
        notes.add("topology written to " + dump.get() + " (DDP4J_TOPO_DUMP_FILE)");
      } catch (IOException e) {
        throw new UncheckedIOException(
            "DDP4J_TOPO_DUMP_FILE=" + dump.get() + " cannot be written: " + e.getMessage(), e);
      }
    }
    return new Result(t, notes);
  }

  /** Reads an NCCL XML file or a saved {@code nvidia-smi topo -m} output, by its content. */
  public static Topology readFile(Path path) {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "topology file " + path + " cannot be read: " + e.getMessage(), e);
    }
    return text.stripLeading().startsWith("<")
        ? NcclTopoXmlReader.parse(text)
        : NvidiaSmiTopoParser.parse(text);
  }

  /**
   * This host as {@code cpuRanks} CPU worker slots (spread over the NUMA nodes) and its NICs, with
   * no GPU probe: what the cpu backend plans over, also on a machine with GPUs.
   */
  public static Topology cpuHost(Path sysRoot, int cpuRanks) {
    return cpus(sysRoot, cpuRanks);
  }

  private static Topology cpus(Path sysRoot, int cpuRanks) {
    TopologyBuilder b = new TopologyBuilder();
    SysfsPci pci = new SysfsPci(sysRoot, b);
    int numaNodes = Math.max(1, numaNodeCount(sysRoot));
    for (int r = 0; r < cpuRanks; r++) {
      int numa = r % numaNodes;
      int cpu = pci.cpu(numa);
      int id =
          b.node(
              NodeType.CPU_RANK,
              "CPU" + numa + "." + r,
              0,
              Map.of("dev", Integer.toString(r), "numaid", Integer.toString(numa)));
      b.link(id, cpu, LinkType.LOC, 1, Bandwidths.LOC_GBPS);
    }
    nics(sysRoot, b, pci);
    return b.build();
  }

  /** Physical network interfaces: those whose sysfs entry links to a PCI device. */
  static void nics(Path sysRoot, TopologyBuilder b, SysfsPci pci) {
    Path net = sysRoot.resolve("class/net");
    if (!Files.isDirectory(net)) {
      return;
    }
    try (Stream<Path> ifaces = Files.list(net)) {
      for (Path iface : ifaces.sorted().toList()) {
        Path device = iface.resolve("device");
        if (!Files.exists(device)) {
          continue;
        }
        String busId = device.toRealPath().getFileName().toString();
        if (!busId.matches("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]")) {
          continue;
        }
        double mbps = 100000;
        try {
          mbps =
              Math.max(1000, Double.parseDouble(Files.readString(iface.resolve("speed")).trim()));
        } catch (IOException | NumberFormatException e) {
          // speed is unreadable while the link is down: keep the 100 Gb/s default
        }
        SysfsPci.Attachment at = pci.attach(busId);
        int id =
            b.node(
                NodeType.NIC,
                iface.getFileName().toString(),
                0,
                Map.of(
                    "busid",
                    busId,
                    "gbps",
                    Double.toString(mbps / 8000.0),
                    "numaid",
                    Integer.toString(at.numa())));
        b.link(id, at.parent(), LinkType.PCI, at.width(), at.gbps());
      }
    } catch (IOException e) {
      // no readable NIC list: the job's hosts are joined through a default NIC (MultiHost)
    }
  }

  private static int numaNodeCount(Path sysRoot) {
    Path nodes = sysRoot.resolve("devices/system/node");
    if (!Files.isDirectory(nodes)) {
      return 1;
    }
    try (Stream<Path> s = Files.list(nodes)) {
      return (int) s.filter(p -> p.getFileName().toString().matches("node\\d+")).count();
    } catch (IOException e) {
      return 1;
    }
  }
}
