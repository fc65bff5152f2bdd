package dev.ddp4j.collectives.topology;

import dev.ddp4j.collectives.process.CommandOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * The GPU part of {@link TopologyDiscovery}: GPUs from the CUDA driver (bus id, compute capability,
 * peer access), the PCI tree above them from sysfs, NVLinks from NVML or, where NVML is missing,
 * from {@code nvidia-smi topo -m} matched to GPUs by bus id.
 */
final class GpuDiscovery {

  private GpuDiscovery() {}

  /** One GPU as found: CUDA ordinal, bus id (sysfs spelling), name, compute capability. */
  record GpuInfo(int ordinal, String busId, String name, int sm, String p2p) {}

  /**
   * The GPUs of this process: from the CUDA driver through JCuda, or, where JCuda's natives do not
   * load (a jar without them), from {@code nvidia-smi --query-gpu}; empty where neither sees one.
   */
  static List<GpuInfo> list(List<String> notes) {
    Optional<String> noCuda = CudaProbe.unavailableReason();
    List<GpuInfo> out = new ArrayList<>();
    if (noCuda.isEmpty()) {
      List<CudaProbe.Gpu> gpus = CudaProbe.gpus();
      for (CudaProbe.Gpu g : gpus) {
        out.add(
            new GpuInfo(
                g.ordinal(),
                SysfsPci.normalizeBusId(g.pciBusId()),
                g.name(),
                computeCapability(g.ordinal()),
                peers(g.ordinal(), gpus.size())));
      }
      notes.add(out.size() + " GPUs from the CUDA driver");
      return out;
    }
    if (!java.nio.file.Files.exists(Path.of("/dev/nvidiactl"))) {
      notes.add("no GPU (" + noCuda.get() + ")");
      return out;
    }
    Optional<String> csv =
        run("nvidia-smi", "--query-gpu=index,pci.bus_id,compute_cap,name", "--format=csv,noheader");
    if (csv.isEmpty()) {
      // Drivers before 510 do not know compute_cap.
      csv = run("nvidia-smi", "--query-gpu=index,pci.bus_id,name", "--format=csv,noheader");
    }
    out.addAll(parseQueryGpu(csv.orElse("")));
    notes.add(
        out.size()
            + " GPUs from nvidia-smi, because the CUDA driver is not usable from this JVM ("
            + noCuda.get()
            + "); ordinals in PCI order");
    return out;
  }

  /**
   * Rows of {@code nvidia-smi --query-gpu=index,pci.bus_id,compute_cap,name --format=csv,noheader}
   * (or the same without compute_cap: compute capability 8.0 is assumed).
   */
  static List<GpuInfo> parseQueryGpu(String csv) {
    List<GpuInfo> out = new ArrayList<>();
    for (String line : csv.split("\n")) {
      String[] f = line.trim().split("\\s*,\\s*", 4);
      if (f.length >= 3 && f[0].matches("\\d+")) {
        boolean withCap = f.length == 4 && f[2].matches("\\d+\\.\\d+");
        int sm = withCap ? (int) Math.round(Double.parseDouble(f[2]) * 10) : 80;
        String name =
            withCap ? f[3] : String.join(", ", java.util.Arrays.copyOfRange(f, 2, f.length));
        out.add(new GpuInfo(Integer.parseInt(f[0]), SysfsPci.normalizeBusId(f[1]), name, sm, null));
      }
    }
    return out;
  }

  static Topology discover(Path sysRoot, List<GpuInfo> gpus, List<String> notes) {
    TopologyBuilder b = new TopologyBuilder();
    SysfsPci pci = new SysfsPci(sysRoot, b);
    Map<String, Integer> byBusId = new HashMap<>();
    for (GpuInfo g : gpus) {
      SysfsPci.Attachment at = pci.attach(g.busId());
      Map<String, String> attrs = new TreeMap<>();
      attrs.put("dev", Integer.toString(g.ordinal()));
      attrs.put("busid", g.busId());
      attrs.put("sm", Integer.toString(g.sm()));
      attrs.put("numaid", Integer.toString(at.numa()));
      if (g.p2p() != null) {
        attrs.put("p2p", g.p2p());
      }
      attrs.put("model", g.name());
      int id = b.node(NodeType.GPU, "GPU" + g.ordinal(), 0, attrs);
      b.link(id, at.parent(), LinkType.PCI, at.width(), at.gbps());
      byBusId.put(g.busId(), id);
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
    TopologyDiscovery.nics(sysRoot, b, pci);
    notes.add("PCI tree from " + sysRoot + "/bus/pci");
    return b.build();
  }

  private static void addNvlinks(
      TopologyBuilder b, Map<String, Integer> byBusId, Map<String, Map<String, Integer>> links) {
    int nvswitch = -1;
    for (Map.Entry<String, Map<String, Integer>> gpu : links.entrySet()) {
      Integer fromId = byBusId.get(gpu.getKey());
      if (fromId == null) {
        continue; // a GPU this process does not see (CUDA_VISIBLE_DEVICES)
      }
      int from = fromId;
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
    return CommandOutput.of(Duration.ofSeconds(10), cmd);
  }

  private static int computeCapability(int ordinal) {
    CUdevice dev = new CUdevice();
    JCudaDriver.cuDeviceGet(dev, ordinal);
    return CudaProbe.computeCapability(dev);
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
}
