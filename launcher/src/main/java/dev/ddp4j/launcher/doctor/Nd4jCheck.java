package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import dev.ddp4j.launcher.ProgramClasspath;
import dev.ddp4j.launcher.doctor.Nd4jClasspath.Backend;
import dev.ddp4j.launcher.doctor.Nd4jClasspath.Found;
import dev.ddp4j.spi.Settings;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * ND4J's backend on the program's class path ({@code --classpath}) against this machine: ND4J loads
 * its CUDA backend over the CPU one when both are there, and that one's {@code libnd4jcuda.so} must
 * hold kernels for every GPU; with ND4J on the CPU, the model trains on the CPU and the {@code
 * cuda} group that {@code DDP4J_BACKEND=auto} picks on a GPU machine takes its gradients through
 * its host half.
 */
final class Nd4jCheck {

  static final String NAME = "nd4j";

  /** What the model trains on when ND4J's CUDA backend cannot. */
  static final String CPU_FIX =
      "train on ND4J's CPU backend: build without -Pnd4j-cuda so that nd4j-native, not nd4j-cuda, is"
          + " on the class path (the cuda group then takes the gradients through its host half)";

  private Nd4jCheck() {}

  static List<Finding> check(GpuInventory inv, String classpath, Settings env, Path tmpDir) {
    if (classpath == null || classpath.isBlank()) {
      return List.of(
          Finding.ok(
              NAME,
              "no program class path given, so ND4J's backend was not checked (doctor"
                  + " --classpath=PATH with the job's --classpath checks it)"));
    }
    List<String> missing = ProgramClasspath.missing(classpath);
    if (!missing.isEmpty()) {
      return List.of(
          Finding.fail(
              NAME,
              "--classpath entry " + missing.get(0) + " does not exist",
              "give the job's jars and folders joined by '"
                  + File.pathSeparator
                  + "', relative to this folder, as launcher.jar --classpath takes them"));
    }
    List<Path> files = ProgramClasspath.files(classpath);
    Nd4jClasspath cp = Nd4jClasspath.scan(files);
    List<Finding> out = new ArrayList<>();
    out.add(backend(cp, files.size(), inv, env, tmpDir));
    for (Nd4jClasspath.Named n : cp.namedOnly()) {
      if (cp.natives().stream().noneMatch(f -> f.backend() == n.backend())) {
        out.add(
            Finding.warn(
                NAME,
                n.jar().getFileName()
                    + " is ND4J's "
                    + n.backend().artifact
                    + " by its name but "
                    + n.why()
                    + ", and no other class-path entry holds "
                    + n.backend().library,
                n.fix()));
      }
    }
    return out;
  }

  private static Finding backend(
      Nd4jClasspath cp, int entries, GpuInventory inv, Settings env, Path tmpDir) {
    if (cp.natives().isEmpty()) {
      return cp.api()
          ? Finding.fail(
              NAME,
              "ND4J is on the class path but no backend: no entry holds "
                  + Backend.NATIVE.library
                  + " or "
                  + Backend.CUDA.library,
              "add org.nd4j:nd4j-native and its linux-x86_64 natives jar (ddp-runtime's default)")
          : Finding.ok(
              NAME, "no ND4J on the class path (" + entries + " entries): nothing to check");
    }
    Found cuda =
        cp.natives().stream().filter(f -> f.backend() == Backend.CUDA).findFirst().orElse(null);
    String found = found(cp.natives(), cuda != null);
    if (cuda == null) {
      String group = env.text("DDP4J_BACKEND", "auto").toLowerCase(Locale.ROOT);
      if (inv.gpus().isEmpty() || group.equals("cpu")) {
        return Finding.ok(NAME, found + ": the model trains on the CPU");
      }
      return Finding.ok(
          NAME,
          found
              + ": the model trains on the CPU, its gradients go through the "
              + (group.equals("auto") ? "cuda" : group)
              + " group's host half (ND4J's CUDA backend, -Pnd4j-cuda, computes on V100, T4, A100,"
              + " RTX 30 and 40, not on H100 or H200)");
    }
    if (inv.gpus().isEmpty()) {
      return Finding.warn(
          NAME,
          found + ", but there is no GPU (" + inv.none() + "): ND4J's CUDA backend needs one",
          "build without -Pnd4j-cuda so that nd4j-native is on the class path, or run on a GPU machine");
    }
    FatBinaryArchitectures archs;
    try {
      archs = CudaLibraryArchitectures.read(cuda.where(), cuda.entry(), tmpDir);
    } catch (IOException | IllegalArgumentException e) {
      return Finding.warn(
          NAME,
          found + ", but its " + Backend.CUDA.library + " cannot be read: " + e.getMessage(),
          "check the jar with unzip -t, and give java.io.tmpdir room for the library"
              + " (java -Djava.io.tmpdir=DIR -jar launcher.jar doctor)");
    }
    Map<String, List<Integer>> uncovered = new LinkedHashMap<>();
    for (GpuInventory.Gpu g : inv.gpus()) {
      if (g.sm() <= 0 || !archs.runsOn(g.sm() / 10, g.sm() % 10)) {
        uncovered.computeIfAbsent(model(g), k -> new ArrayList<>()).add(g.ordinal());
      }
    }
    if (uncovered.isEmpty()) {
      return Finding.ok(
          NAME,
          found
              + ", whose "
              + Backend.CUDA.library
              + " runs on every GPU here: it holds "
              + archs.describe());
    }
    String gpus =
        uncovered.entrySet().stream()
            .map(
                e ->
                    "GPU "
                        + e.getValue().stream()
                            .map(String::valueOf)
                            .collect(Collectors.joining(","))
                        + " ("
                        + e.getKey()
                        + ")")
            .collect(Collectors.joining("; "));
    return Finding.fail(
        NAME,
        found
            + ", whose "
            + Backend.CUDA.library
            + " cannot run on "
            + gpus
            + ": it holds "
            + archs.describe(),
        CPU_FIX);
  }

  /**
   * {@code ND4J backend on the class path: nd4j-cuda-11.6 1.0.0-M2.1 (CUDA) in JAR}; with both,
   * which one ND4J loads.
   */
  private static String found(List<Found> natives, boolean cuda) {
    String each =
        natives.stream()
            .map(f -> f.label() + " (" + f.backend().device + ") in " + shown(f.where()))
            .collect(Collectors.joining(", "));
    boolean both = cuda && natives.stream().anyMatch(f -> f.backend() == Backend.NATIVE);
    return (natives.size() == 1
            ? "ND4J backend on the class path: "
            : "ND4J backends on the class path: ")
        + each
        + (both ? "; ND4J prefers the CUDA one (its priority is higher)" : "");
  }

  /** A jar by its file name (its folder is the build's); a folder in full. */
  private static String shown(Path where) {
    return Files.isDirectory(where) ? where.toString() : where.getFileName().toString();
  }

  private static String model(GpuInventory.Gpu g) {
    return g.sm() <= 0
        ? g.name() + ", compute capability unknown"
        : String.format(
            Locale.ROOT, "%s, compute capability %d.%d", g.name(), g.sm() / 10, g.sm() % 10);
  }
}
