package dev.ddp4j.launcher.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The ND4J backends on a program's class path, found by the native library their natives jar holds
 * (so a shaded application jar counts too), and by a jar's file name only where it holds none.
 *
 * @param natives the backends whose native library is there, in class-path order
 * @param namedOnly jars named like a backend's that hold no native library of it (its classes jar
 *     without the natives jar, or a jar that cannot be read), with why
 * @param api whether ND4J itself ({@code org.nd4j.linalg.factory.Nd4j}) is there
 */
record Nd4jClasspath(List<Found> natives, List<Named> namedOnly, boolean api) {

  /** ND4J's backends; its loader takes the one of highest priority (CUDA's 100 over CPU's 0). */
  enum Backend {
    NATIVE("nd4j-native", "CPU", "org/nd4j/linalg/cpu/nativecpu/bindings/", "libnd4jcpu.so"),
    CUDA("nd4j-cuda", "CUDA", "org/nd4j/linalg/jcublas/bindings/", "libnd4jcuda.so");

    final String artifact;
    final String device;
    final String folder;
    final String library;

    /** The library's entry, for linux-x86_64 and its CPU variants ({@code linux-x86_64-avx2}). */
    final Pattern entry;

    Backend(String artifact, String device, String folder, String library) {
      this.artifact = artifact;
      this.device = device;
      this.folder = folder;
      this.library = library;
      this.entry =
          Pattern.compile(Pattern.quote(folder) + "linux-x86_64[^/]*/" + Pattern.quote(library));
    }
  }

  /**
   * A backend's native library: in jar (or folder) {@code where} at {@code entry}; {@code label} is
   * the artifact and version from the jar's Maven metadata ({@code nd4j-cuda-11.6 1.0.0-M2.1}).
   */
  record Found(Backend backend, String label, Path where, String entry) {}

  /** A jar named like {@code backend}'s that holds none of its native library, why, and the fix. */
  record Named(Backend backend, Path jar, String why, String fix) {}

  private static final Pattern POM =
      Pattern.compile("META-INF/maven/org\\.nd4j/(nd4j-native|nd4j-cuda-[0-9.]+)/pom\\.properties");

  /** ND4J's classes and natives jars, not nd4j-native-api, nd4j-native-platform or the like. */
  private static final Pattern JAR_NAME =
      Pattern.compile("(nd4j-native|nd4j-cuda-[0-9]+\\.[0-9]+)-[0-9][^/]*\\.jar");

  private static final String API = "org/nd4j/linalg/factory/Nd4j.class";

  static Nd4jClasspath scan(List<Path> classpath) {
    List<Found> natives = new ArrayList<>();
    List<Named> named = new ArrayList<>();
    boolean api = false;
    for (Path p : classpath) {
      if (Files.isDirectory(p)) {
        api |= Files.isRegularFile(p.resolve(API));
        for (Backend b : Backend.values()) {
          String entry = b.folder + "linux-x86_64/" + b.library;
          if (Files.isRegularFile(p.resolve(entry))) {
            natives.add(new Found(b, b.artifact, p, entry));
          }
        }
      } else if (Files.isRegularFile(p)) {
        Matcher name = JAR_NAME.matcher(p.getFileName().toString());
        Backend byName =
            !name.matches()
                ? null
                : name.group(1).startsWith("nd4j-cuda") ? Backend.CUDA : Backend.NATIVE;
        int before = natives.size();
        try {
          api |= scanJar(p, natives);
        } catch (IOException e) {
          if (byName != null) {
            named.add(
                new Named(
                    byName,
                    p,
                    "cannot be read as a jar (" + e.getMessage() + ")",
                    "rebuild or download the jar again"));
          }
          continue;
        }
        if (byName != null
            && natives.subList(before, natives.size()).stream()
                .noneMatch(f -> f.backend() == byName)) {
          named.add(
              new Named(
                  byName,
                  p,
                  "holds no " + byName.library,
                  "add its natives jar too (classifier linux-x86_64), or take it off the class path"));
        }
      }
    }
    return new Nd4jClasspath(List.copyOf(natives), List.copyOf(named), api);
  }

  /** Adds the jar's native libraries to {@code natives}; whether it holds ND4J's classes. */
  private static boolean scanJar(Path jar, List<Found> natives) throws IOException {
    boolean api = false;
    Map<Backend, String> entries = new EnumMap<>(Backend.class);
    Map<Backend, String> labels = new EnumMap<>(Backend.class);
    try (ZipFile z = new ZipFile(jar.toFile())) {
      for (Enumeration<? extends ZipEntry> en = z.entries(); en.hasMoreElements(); ) {
        ZipEntry e = en.nextElement();
        String n = e.getName();
        api |= n.equals(API);
        for (Backend b : Backend.values()) {
          if (n.startsWith(b.folder) && b.entry.matcher(n).matches()) {
            entries.putIfAbsent(b, n);
          }
        }
        Matcher pom = POM.matcher(n);
        if (pom.matches()) {
          Properties p = new Properties();
          try (InputStream in = z.getInputStream(e)) {
            p.load(in);
          }
          labels.put(
              pom.group(1).startsWith("nd4j-cuda") ? Backend.CUDA : Backend.NATIVE,
              (pom.group(1) + " " + p.getProperty("version", "")).trim());
        }
      }
    }
    entries.forEach(
        (b, entry) -> natives.add(new Found(b, labels.getOrDefault(b, b.artifact), jar, entry)));
    return api;
  }
}
