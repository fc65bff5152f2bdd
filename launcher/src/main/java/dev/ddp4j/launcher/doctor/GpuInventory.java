package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.topology.Node;
import dev.ddp4j.collectives.topology.NvidiaSmiTopoParser;
import dev.ddp4j.collectives.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPUs of a machine, their driver, and their topology with each pair's peer access: from the
 * CUDA driver where this JVM can use it (what a job sees), else from {@code nvidia-smi}.
 *
 * @param gpus in CUDA ordinal order; empty where there is none
 * @param driverVersion e.g. {@code 550.54.15}, or empty where unknown
 * @param topology the GPUs' topology with peer access in each GPU's {@code p2p}, or null
 * @param source how they were found
 * @param none why there is no GPU, when {@code gpus} is empty
 */
record GpuInventory(
    List<Gpu> gpus, String driverVersion, Topology topology, String source, String none) {

  /** One GPU: CUDA ordinal, model, PCI bus id, compute capability x 10 (90 for 9.0). */
  record Gpu(int ordinal, String name, String busId, int sm) {}

  static final String QUERY = "--query-gpu=index,pci.bus_id,compute_cap,driver_version,name";

  private static final Pattern NVRM_VERSION = Pattern.compile("Kernel Module\\s+(\\d+[.\\d]*)");

  static GpuInventory of(Machine m) {
    if (!m.exists(Path.of("/dev/nvidiactl"))) {
      return new GpuInventory(
          List.of(), "", null, "", "no NVIDIA driver (/dev/nvidiactl is absent)");
    }
    List<String> notes = new ArrayList<>();
    Optional<Topology> cuda = m.cudaTopology(notes);
    if (cuda.isPresent()) {
      List<Gpu> gpus = new ArrayList<>();
      for (int i = 0; i < cuda.get().deviceCount(); i++) {
        Node n = cuda.get().device(i);
        gpus.add(
            new Gpu(
                n.intAttr("dev", i),
                n.attr("model", n.name()),
                n.attr("busid", ""),
                n.intAttr("sm", 0)));
      }
      return new GpuInventory(gpus, driverVersion(m), cuda.get(), "the CUDA driver", "");
    }
    return fromNvidiaSmi(m);
  }

  /**
   * From {@code nvidia-smi --query-gpu=...}, {@code nvidia-smi topo -m} and {@code nvidia-smi topo
   * -p2p r} (peer reads: OK, or why not).
   */
  static GpuInventory fromNvidiaSmi(Machine m) {
    Optional<String> csv = m.run("nvidia-smi", QUERY, "--format=csv,noheader");
    if (csv.isEmpty()) {
      return new GpuInventory(
          List.of(),
          "",
          null,
          "",
          "/dev/nvidiactl exists but neither the CUDA driver nor nvidia-smi answers");
    }
    List<Gpu> gpus = new ArrayList<>();
    String driver = "";
    for (String line : csv.get().split("\n")) {
      String[] f = line.trim().split("\\s*,\\s*", 5);
      if (f.length == 5 && f[0].matches("\\d+") && f[2].matches("\\d+\\.\\d+")) {
        gpus.add(
            new Gpu(
                Integer.parseInt(f[0]),
                f[4],
                sysfsBusId(f[1]),
                (int) Math.round(Double.parseDouble(f[2]) * 10)));
        driver = f[3];
      }
    }
    Topology t = null;
    Optional<String> matrix = m.run("nvidia-smi", "topo", "-m");
    if (matrix.isPresent() && !gpus.isEmpty()) {
      t = NvidiaSmiTopoParser.parse(matrix.get());
      Optional<String> p2p = m.run("nvidia-smi", "topo", "-p2p", "r");
      if (p2p.isPresent() && t.deviceCount() == gpus.size()) {
        t = t.withPeerAccess(parsePeerMatrix(p2p.get(), gpus.size()));
      }
    }
    return new GpuInventory(
        gpus,
        driver,
        t,
        "nvidia-smi (the CUDA driver is not usable from this JVM)",
        gpus.isEmpty() ? "nvidia-smi lists no GPU" : "");
  }

  /**
   * {@code nvidia-smi topo -p2p r}: a row per GPU, {@code OK} where it may read its peer's memory,
   * else why not ({@code CNS} chipset, {@code GNS} GPU, {@code TNS} topology, {@code NS}).
   */
  static boolean[][] parsePeerMatrix(String text, int n) {
    boolean[][] out = new boolean[n][];
    for (String line : text.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= n + 1 && f[0].matches("GPU\\d+")) {
        int i = Integer.parseInt(f[0].substring(3));
        if (i < n) {
          out[i] = new boolean[n];
          for (int j = 0; j < n; j++) {
            out[i][j] = i == j || f[j + 1].equals("OK");
          }
        }
      }
    }
    return out;
  }

  /** nvidia-smi's {@code 00000000:18:00.0} as sysfs spells it: {@code 0000:18:00.0}. */
  static String sysfsBusId(String busId) {
    String id = busId.trim().toLowerCase(java.util.Locale.ROOT);
    int colon = id.indexOf(':');
    return colon > 4 ? id.substring(colon - 4) : id;
  }

  private static String driverVersion(Machine m) {
    try {
      Path v = m.procRoot().resolve("driver/nvidia/version");
      if (Files.exists(v)) {
        Matcher x = NVRM_VERSION.matcher(Files.readString(v));
        if (x.find()) {
          return x.group(1);
        }
      }
    } catch (IOException e) {
      // fall back to nvidia-smi
    }
    return m.run("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader")
        .map(s -> s.trim().split("\\s+")[0])
        .orElse("");
  }
}
