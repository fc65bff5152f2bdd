package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * GPUs, their driver and compute capability against the fat binaries ddp4j's cuda backend ships:
 * every GPU must run both kernel images, and the driver must load them.
 */
final class GpuCheck {

  static final String NAME = "gpu";

  /** The kernel images the cuda backend loads (AllReduceKernels, CollectiveLauncher). */
  static final List<String> FAT_BINARIES =
      List.of(
          "/dev/ddp4j/collectives/cuda/ddp4j_allreduce.fatbin",
          "/dev/ddp4j/collectives/cuda/ddp4j_collectives.fatbin");

  /** The oldest driver branch that loads fat binaries of the CUDA 12.0 era (docs/gpus.md). */
  static final int MIN_DRIVER_MAJOR = 525;

  private GpuCheck() {}

  static List<Finding> check(GpuInventory inv, Machine m) {
    String backend = m.env().text("DDP4J_BACKEND", "auto");
    if (inv.gpus().isEmpty()) {
      if (backend.equals("cuda")) {
        return List.of(
            Finding.fail(
                NAME,
                "DDP4J_BACKEND=cuda but there is no GPU: " + inv.none(),
                "install the NVIDIA driver, or DDP4J_BACKEND=cpu (or auto)"));
      }
      return List.of(Finding.ok(NAME, "no GPU (" + inv.none() + "): jobs run the cpu backend"));
    }
    List<Finding> out = new ArrayList<>();
    int major = driverMajor(inv.driverVersion());
    if (major < 0) {
      out.add(
          Finding.warn(
              NAME,
              "driver version unknown (neither /proc/driver/nvidia/version nor nvidia-smi says)",
              "check `nvidia-smi` runs"));
    } else if (major < MIN_DRIVER_MAJOR) {
      out.add(
          Finding.fail(
              NAME,
              "NVIDIA driver "
                  + inv.driverVersion()
                  + " is older than "
                  + MIN_DRIVER_MAJOR
                  + ", the oldest that loads ddp4j's kernels",
              "update the driver to " + MIN_DRIVER_MAJOR + " or newer, or DDP4J_BACKEND=cpu"));
    }
    FatBinaryArchitectures archs = shipped();
    Map<String, List<Integer>> byModel = new LinkedHashMap<>();
    List<String> unsupported = new ArrayList<>();
    for (GpuInventory.Gpu g : inv.gpus()) {
      String model = g.name() + " (compute capability " + cc(g.sm()) + ")";
      byModel.computeIfAbsent(model, k -> new ArrayList<>()).add(g.ordinal());
      if (g.sm() <= 0 || !archs.runsOn(g.sm() / 10, g.sm() % 10)) {
        unsupported.add("GPU" + g.ordinal() + " " + model);
      }
    }
    if (!unsupported.isEmpty()) {
      out.add(
          Finding.fail(
              NAME,
              String.join(", ", unsupported)
                  + " cannot run ddp4j's kernels, which hold "
                  + archs.describe(),
              "DDP4J_BACKEND=cpu on this machine, or use GPUs of a supported compute capability"));
    }
    if (out.stream().noneMatch(f -> f.status() == Finding.Status.FAIL)) {
      List<String> models = new ArrayList<>();
      byModel.forEach((model, ords) -> models.add(ords.size() + " x " + model));
      out.add(
          0,
          Finding.ok(
              NAME,
              String.join(", ", models)
                  + (inv.driverVersion().isEmpty() ? "" : ", driver " + inv.driverVersion())
                  + ", from "
                  + inv.source()
                  + ": ddp4j's kernels run on "
                  + (inv.gpus().size() == 1 ? "it" : "them")));
    }
    return out;
  }

  /** What both shipped images serve: a GPU must run each of them. */
  static FatBinaryArchitectures shipped() {
    FatBinaryArchitectures all = null;
    for (String r : FAT_BINARIES) {
      try (InputStream in = FatBinaryArchitectures.class.getResourceAsStream(r)) {
        if (in == null) {
          throw new IllegalStateException("the launcher jar lacks the kernel image " + r);
        }
        FatBinaryArchitectures a = FatBinaryArchitectures.parse(in.readAllBytes());
        all = all == null ? a : intersect(all, a);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the kernel image " + r, e);
      }
    }
    return all;
  }

  private static FatBinaryArchitectures intersect(
      FatBinaryArchitectures a, FatBinaryArchitectures b) {
    java.util.Set<Integer> sass = new java.util.TreeSet<>(a.machineCode());
    sass.retainAll(b.machineCode());
    java.util.Set<Integer> ptx = new java.util.TreeSet<>(a.ptx());
    ptx.retainAll(b.ptx());
    return new FatBinaryArchitectures(sass, ptx);
  }

  static int driverMajor(String version) {
    try {
      return Integer.parseInt(version.trim().split("\\.")[0]);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String cc(int sm) {
    return String.format(Locale.ROOT, "%d.%d", sm / 10, sm % 10);
  }
}
