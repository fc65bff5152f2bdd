package dev.ddp4j.collectives.nccl;

import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where libnccl.so.2 may be, in the order tried: {@code DDP4J_NCCL_LIBRARY} (alone when set: the
 * user chose), then the dynamic loader's search path ({@code LD_LIBRARY_PATH}, the ld.so cache),
 * then the layout of NVIDIA's Python wheels ({@code nvidia-nccl-cu12} and the like install {@code
 * site-packages/nvidia/nccl/lib/libnccl.so.2}, which PyTorch's wheels pull in) under every Python
 * package folder found from the environment and the usual prefixes.
 */
final class NcclLocator {

  static final String LIBRARY_VAR = "DDP4J_NCCL_LIBRARY";
  static final String SONAME = "libnccl.so.2";

  /**
   * One place to try: a path, or the bare soname for the dynamic loader.
   *
   * @param origin how the place was found, for messages
   */
  record Candidate(String library, String origin) {}

  /** What to try, and the Python package folders that were looked in (for the error). */
  record Search(List<Candidate> candidates, List<Path> pythonFolders) {}

  private NcclLocator() {}

  static Search search(Settings env) {
    if (env.isSet(LIBRARY_VAR)) {
      return new Search(List.of(new Candidate(env.text(LIBRARY_VAR, ""), LIBRARY_VAR)), List.of());
    }
    List<Candidate> out = new ArrayList<>();
    out.add(new Candidate(SONAME, "the dynamic loader's path"));
    List<Path> folders = pythonPackageFolders(env);
    for (Path folder : folders) {
      Path lib = folder.resolve("nvidia").resolve("nccl").resolve("lib").resolve(SONAME);
      if (Files.isRegularFile(lib)) {
        out.add(new Candidate(lib.toString(), "NVIDIA's Python wheel in " + folder));
      }
    }
    return new Search(out, folders);
  }

  /**
   * Existing site-packages and dist-packages folders: {@code PYTHONPATH}'s entries, then those of
   * {@code VIRTUAL_ENV}, {@code CONDA_PREFIX}, pyenv's versions, the folders above each {@code
   * python3} on {@code PATH}, {@code ~/.local}, {@code /usr/local}, {@code /usr} and {@code
   * /opt/conda}.
   */
  static List<Path> pythonPackageFolders(Settings env) {
    Set<Path> folders = new LinkedHashSet<>();
    for (String entry : split(env.text("PYTHONPATH", null))) {
      Path p = Path.of(entry);
      if (Files.isDirectory(p)) {
        folders.add(p.toAbsolutePath().normalize());
      }
    }
    List<Path> prefixes = new ArrayList<>();
    for (String var : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
      env.text(var).ifPresent(v -> prefixes.add(Path.of(v)));
    }
    String home = env.text("HOME", System.getProperty("user.home", ""));
    String pyenv = env.text("PYENV_ROOT", home.isEmpty() ? "" : home + "/.pyenv");
    if (!pyenv.isEmpty()) {
      prefixes.addAll(children(Path.of(pyenv, "versions")));
    }
    for (String dir : split(env.text("PATH", null))) {
      Path bin = Path.of(dir);
      if (Files.isExecutable(bin.resolve("python3")) && bin.getParent() != null) {
        prefixes.add(bin.getParent());
      }
    }
    if (!home.isEmpty()) {
      prefixes.add(Path.of(home, ".local"));
    }
    prefixes.addAll(List.of(Path.of("/usr/local"), Path.of("/usr"), Path.of("/opt/conda")));
    for (Path prefix : prefixes) {
      for (Path lib : List.of(prefix.resolve("lib"), prefix.resolve("lib64"))) {
        for (Path python : children(lib)) {
          if (!python.getFileName().toString().startsWith("python3")) {
            continue;
          }
          for (String kind : List.of("site-packages", "dist-packages")) {
            Path folder = python.resolve(kind);
            if (Files.isDirectory(folder)) {
              folders.add(folder.toAbsolutePath().normalize());
            }
          }
        }
      }
    }
    return List.copyOf(folders);
  }

  private static List<String> split(String pathList) {
    if (pathList == null || pathList.isBlank()) {
      return List.of();
    }
    return Stream.of(pathList.split(":")).filter(s -> !s.isBlank()).toList();
  }

  private static List<Path> children(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isDirectory).sorted().toList();
    } catch (IOException | SecurityException e) {
      return List.of();
    }
  }
}
