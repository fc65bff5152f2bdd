package dev.ddp4j.launcher;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * The program's {@code --classpath} as the launcher reads it, for the launcher and its doctor:
 * entries joined by {@link File#pathSeparator}, each a jar, a folder, or {@code dir/*}, which the
 * launcher hands to the worker JVMs as it is and which they expand to the folder's jars.
 */
public final class ProgramClasspath {

  private ProgramClasspath() {}

  /** The entries, absolute, blank ones left out; {@code dir/*} stays as it is. */
  public static List<String> split(String classpath) {
    List<String> out = new ArrayList<>();
    if (classpath == null) {
      return out;
    }
    for (String p : classpath.split(File.pathSeparator)) {
      if (!p.isBlank()) {
        out.add(Path.of(p).toAbsolutePath().toString());
      }
    }
    return out;
  }

  /** The entries, as given, that do not exist; {@code dir/*} ones are not looked at. */
  public static List<String> missing(String classpath) {
    List<String> out = new ArrayList<>();
    for (String p : classpath == null ? new String[0] : classpath.split(File.pathSeparator)) {
      if (!p.isBlank() && !p.endsWith("*") && !Files.exists(Path.of(p))) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * The jars and folders a worker JVM reads, in order: {@code dir/*} becomes the folder's {@code
   * .jar} and {@code .JAR} files, as {@code java -cp} expands it (not recursively; sorted here, as
   * the JVM's order is the file system's), and each jar's manifest {@code Class-Path} adds its
   * entries after it, relative to the jar's folder (as {@code examples.jar} names its {@code
   * lib/}).
   */
  public static List<Path> files(String classpath) {
    List<Path> out = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    for (Path p : listed(classpath)) {
      withManifestPaths(p, out, seen);
    }
    return out;
  }

  private static void withManifestPaths(Path p, List<Path> out, Set<Path> seen) {
    if (!seen.add(p.toAbsolutePath().normalize())) {
      return;
    }
    out.add(p);
    if (!Files.isRegularFile(p) || !isJar(p)) {
      return;
    }
    String manifestPath;
    try (JarFile jar = new JarFile(p.toFile())) {
      Manifest m = jar.getManifest();
      manifestPath = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
    } catch (IOException e) {
      return; // not a readable jar: the checks that open it say so
    }
    if (manifestPath == null) {
      return;
    }
    for (String entry : manifestPath.trim().split("\\s+")) {
      if (!entry.isEmpty() && !entry.contains(":")) {
        withManifestPaths(p.getParent().resolve(entry).normalize(), out, seen);
      }
    }
  }

  private static List<Path> listed(String classpath) {
    List<Path> out = new ArrayList<>();
    for (String e : split(classpath)) {
      Path p = Path.of(e);
      if (!p.getFileName().toString().equals("*")) {
        out.add(p);
        continue;
      }
      Path dir = p.getParent();
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> in = Files.list(dir)) {
        in.filter(ProgramClasspath::isJar).filter(Files::isRegularFile).sorted().forEach(out::add);
      } catch (IOException x) {
        throw new UncheckedIOException("cannot list " + dir + " for classpath entry " + e, x);
      }
    }
    return out;
  }

  /** Named {@code .jar} or {@code .JAR}, the two endings {@code java -cp dir/*} takes. */
  private static boolean isJar(Path p) {
    String name = p.toString();
    return name.endsWith(".jar") || name.endsWith(".JAR");
  }
}
