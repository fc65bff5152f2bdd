package dev.ddp4j.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Binds a worker to its GPU's NUMA node with {@code numactl --cpunodebind=N --membind=N}, where
 * sysfs knows the node ({@code /sys/bus/pci/devices/<bus id>/numa_node}, -1 when unknown) and
 * numactl is on the PATH.
 */
public final class NumaBinding {

  private NumaBinding() {}

  /** The NUMA node of the PCI device {@code pciBusId} under {@code sysfsRoot}, or -1. */
  public static int numaNodeOf(Path sysfsRoot, String pciBusId) {
    Path f =
        sysfsRoot
            .resolve("bus/pci/devices")
            .resolve(pciBusId.toLowerCase(Locale.ROOT))
            .resolve("numa_node");
    try {
      return Integer.parseInt(Files.readString(f).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /** The numactl executable on {@code path} (a PATH value), if any. */
  static Optional<Path> findNumactl(String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "numactl");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The command prefix binding to {@code numaNode}, empty when it is unknown or numactl missing.
   */
  static List<String> prefix(int numaNode, Optional<Path> numactl) {
    if (numaNode < 0 || numactl.isEmpty()) {
      return List.of();
    }
    return List.of(numactl.get().toString(), "--cpunodebind=" + numaNode, "--membind=" + numaNode);
  }
}
