package dev.ddp4j.collectives.topology;

import dev.ddp4j.collectives.cuda.CudaProbe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

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
    return discover(System.getenv(), Path.of("/sys"), cpuRanks);
  }

  /** Discovers reading variables from {@code env} and sysfs under {@code sysRoot}. */
  public static Result discover(Map<String, String> env, Path sysRoot, int cpuRanks) {
    List<String> notes = new ArrayList<>();
    Topology t;
    Optional<String> file = get(env, "DDP4J_TOPO_FILE", "NCCL_TOPO_FILE");
    if (file.isPresent()) {
      t = readFile(Path.of(file.get()));
      notes.add("topology read from " + file.get() + " (DDP4J_TOPO_FILE), not discovered");
    } else {
      Optional<String> noCuda = CudaProbe.unavailableReason();
      if (noCuda.isEmpty()) {
        t = gpus(sysRoot, notes);
      } else {
        notes.add("no GPU (" + noCuda.get() + "): " + cpuRanks + " CPU ranks");
        t = cpus(sysRoot, cpuRanks);
      }
    }
    Optional<String> dump = get(env, "DDP4J_TOPO_DUMP_FILE", "NCCL_TOPO_DUMP_FILE");
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

  private static Topology gpus(Path sysRoot, List<String> notes) {
    TopologyBuilder b = new TopologyBuilder();
    SysfsPci pci = new SysfsPci(sysRoot, b);
    List<CudaProbe.Gpu> gpus = CudaProbe.gpus();
    Map<String, Integer> byBusId = new HashMap<>();
    for (CudaProbe.Gpu g : gpus) {
      String busId = SysfsPci.normalizeBusId(g.pciBusId());
      SysfsPci.Attachment at = pci.attach(busId);
      Map<String, String> attrs = new TreeMap<>();
      attrs.put("dev", Integer.toString(g.ordinal()));
      attrs.put("busid", busId);
      attrs.put("sm", Integer.toString(computeCapability(g.ordinal())));
      attrs.put("numaid", Integer.toString(at.numa()));
      attrs.put("p2p", peers(g.ordinal(), gpus.size()));
      attrs.put("model", g.name());
      int id = b.node(NodeType.GPU, "GPU" + g.ordinal(), 0, attrs);
      b.link(id, at.parent(), LinkType.PCI, at.width(), at.gbps());
      byBusId.put(busId, id);
    }
    StringBuilder whyNot = new StringBuilder();
    Optional<Map<String, Map<String, Integer>>> links = Nvml.nvlinks(byBusId.keySet(), whyNot);
    if (links.isPresent()) {
      notes.add("NVLink from NVML");
    } else {
      links = nvidiaSmiNvlinks(byBusId.keySet(), notes);
      notes.add("NVML not usable (" + whyNot + "); NVLink from nvidia-smi topo -m");
    }
    addNvlinks(b, byBusId, links.orElse(Map.of()));
    nics(sysRoot, b, pci);
    notes.add(gpus.size() + " GPUs from the CUDA driver, PCI tree from " + sysRoot + "/bus/pci");
    return b.build();
  }

  private static void addNvlinks(
      TopologyBuilder b, Map<String, Integer> byBusId, Map<String, Map<String, Integer>> links) {
    int nvswitch = -1;
    for (Map.Entry<String, Map<String, Integer>> gpu : links.entrySet()) {
      int from = byBusId.get(gpu.getKey());
      double perLink = Bandwidths.nvlinkGbpsPerLink(b.get(from).intAttr("sm", 80));
      int toSwitch = 0;
      for (Map.Entry<String, Integer> remote : gpu.getValue().entrySet()) {
        Integer to = byBusId.get(remote.getKey());
        if (to == null) {
          toSwitch += remote.getValue();
        } else if (from < to) {
          b.link(from, to, LinkType.NVL, remote.getValue(), remote.getValue() * perLink);
        }
      }
      if (toSwitch > 0) {
        if (nvswitch < 0) {
          nvswitch = b.node(NodeType.NVSWITCH, "NVS0", 0);
        }
        b.link(from, nvswitch, LinkType.NVL, toSwitch, toSwitch * perLink);
      }
    }
  }

  /** NV# cells of {@code nvidia-smi topo -m}, mapped to bus ids via {@code --query-gpu}. */
  private static Optional<Map<String, Map<String, Integer>>> nvidiaSmiNvlinks(
      Iterable<String> cudaBusIds, List<String> notes) {
    Optional<String> matrix = run("nvidia-smi", "topo", "-m");
    Optional<String> ids = run("nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader");
    if (matrix.isEmpty() || ids.isEmpty()) {
      notes.add("nvidia-smi did not run: NVLinks unknown, PCIe only");
      return Optional.empty();
    }
    Topology smi = NvidiaSmiTopoParser.parse(matrix.get());
    String[] busIds = ids.get().trim().split("\\s*\\n\\s*");
    Map<String, Map<String, Integer>> out = new TreeMap<>();
    for (int i = 0; i < smi.deviceCount() && i < busIds.length; i++) {
      Map<String, Integer> remote = new TreeMap<>();
      for (int j = 0; j < smi.deviceCount() && j < busIds.length; j++) {
        Route r = smi.route(i, j);
        if (i != j && r.type() == PathType.NV) {
          remote.put(SysfsPci.normalizeBusId(busIds[j]), r.nvLanes());
        }
      }
      out.put(SysfsPci.normalizeBusId(busIds[i]), remote);
    }
    for (String id : cudaBusIds) {
      out.putIfAbsent(id, Map.of());
    }
    return Optional.of(out);
  }

  private static Optional<String> run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      return p.exitValue() == 0
          ? Optional.of(new String(out, StandardCharsets.UTF_8))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static int computeCapability(int ordinal) {
    CUdevice dev = new CUdevice();
    JCudaDriver.cuDeviceGet(dev, ordinal);
    int[] major = new int[1];
    int[] minor = new int[1];
    JCudaDriver.cuDeviceGetAttribute(
        major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    JCudaDriver.cuDeviceGetAttribute(
        minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    return major[0] * 10 + minor[0];
  }

  /** Ordinals this GPU can access as peers (cuDeviceCanAccessPeer), comma-separated. */
  private static String peers(int ordinal, int count) {
    CUdevice dev = new CUdevice();
    JCudaDriver.cuDeviceGet(dev, ordinal);
    List<String> out = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      CUdevice peer = new CUdevice();
      JCudaDriver.cuDeviceGet(peer, p);
      int[] can = new int[1];
      if (p != ordinal && JCudaDriver.cuDeviceCanAccessPeer(can, dev, peer) == 0 && can[0] == 1) {
        out.add(Integer.toString(p));
      }
    }
    return String.join(",", out);
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

  private static Optional<String> get(Map<String, String> env, String name, String ncclName) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      v = env.get(ncclName);
    }
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }
}
