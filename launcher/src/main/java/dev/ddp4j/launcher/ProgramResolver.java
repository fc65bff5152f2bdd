package dev.ddp4j.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

/**
 * Turns the program argument into a main class and a worker classpath: an application jar (its
 * Main-Class), a fully qualified class name, or a simple name such as {@code Train} found by
 * scanning the {@code --classpath} entries and the launcher's own classpath (jars and folders,
 * without following manifests' Class-Path).
 */
final class ProgramResolver {

  /** The worker's main class and classpath entries, user entries first. */
  record Program(String mainClass, List<String> classpath) {
    String classpathString() {
      return String.join(File.pathSeparator, classpath);
    }
  }

  private ProgramResolver() {}

  static Program resolve(String program, String userClasspath, String launcherClasspath) {
    if (program == null || program.isBlank()) {
      throw new UsageException(
          "no program given (expected: a main class such as Train or com.acme.Train, or an application jar)");
    }
    List<String> user = ProgramClasspath.split(userClasspath);
    List<String> missing = ProgramClasspath.missing(userClasspath);
    if (!missing.isEmpty()) {
      throw new UsageException(
          "--classpath="
              + userClasspath
              + ": "
              + missing.get(0)
              + " does not exist (expected: jars or folders joined by '"
              + File.pathSeparator
              + "', such as examples/target/examples.jar; run from the folder they are relative to)");
    }
    List<String> launcher = ProgramClasspath.split(launcherClasspath);
    Set<String> all = new LinkedHashSet<>();
    if (program.endsWith(".jar")) {
      Path jar = Path.of(program).toAbsolutePath();
      if (!Files.isRegularFile(jar)) {
        throw new UsageException(
            "program "
                + program
                + " is not a file (expected: an application jar with a Main-Class)");
      }
      String main = mainClassOf(jar);
      all.add(jar.toString());
      all.addAll(user);
      all.addAll(launcher);
      return new Program(main, List.copyOf(all));
    }
    all.addAll(user);
    all.addAll(launcher);
    List<String> entries = List.copyOf(all);
    String resource = program.replace('.', '/') + ".class";
    if (program.contains(".")) {
      for (String e : entries) {
        if (contains(Path.of(e), resource)) {
          return new Program(program, entries);
        }
      }
      throw new UsageException(
          "main class "
              + program
              + " is not on the classpath (searched --classpath="
              + (userClasspath == null ? "" : userClasspath)
              + " and the launcher's; expected: add its jar or folder with --classpath)");
    }
    List<String> found = new ArrayList<>();
    for (String e : entries) {
      found.addAll(classesNamed(Path.of(e), program));
    }
    List<String> distinct = withMainMethod(found.stream().distinct().toList(), entries);
    if (distinct.isEmpty()) {
      throw new UsageException(
          "no class named "
              + program
              + " on --classpath="
              + (userClasspath == null ? "" : userClasspath)
              + " or the launcher's classpath (expected: a main class's simple or fully qualified name;"
              + " add its jar or folder with --classpath)");
    }
    if (distinct.size() > 1) {
      throw new UsageException(
          "class name "
              + program
              + " is ambiguous: "
              + distinct
              + " (expected: the fully qualified name)");
    }
    return new Program(distinct.get(0), entries);
  }

  /**
   * The candidates that declare {@code public static void main(String[])}, so a helper class that
   * shares the program's simple name does not make it ambiguous. Classes are loaded without being
   * initialized; one that cannot be loaded here stays a candidate.
   */
  private static List<String> withMainMethod(List<String> candidates, List<String> entries) {
    if (candidates.size() < 2) {
      return candidates;
    }
    java.net.URL[] urls =
        entries.stream()
            .map(
                e -> {
                  try {
                    return Path.of(e).toUri().toURL();
                  } catch (java.net.MalformedURLException ex) {
                    throw new UsageException("classpath entry " + e + " is not a valid path");
                  }
                })
            .toArray(java.net.URL[]::new);
    List<String> out = new ArrayList<>();
    try (java.net.URLClassLoader loader =
        new java.net.URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
      for (String c : candidates) {
        try {
          java.lang.reflect.Method m =
              Class.forName(c, false, loader).getMethod("main", String[].class);
          if (java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
            out.add(c);
          }
        } catch (NoSuchMethodException e) {
          // not a program
        } catch (ReflectiveOperationException | LinkageError e) {
          out.add(c);
        }
      }
    } catch (IOException e) {
      return candidates;
    }
    return out;
  }

  private static String mainClassOf(Path jar) {
    try (JarFile jf = new JarFile(jar.toFile())) {
      String main =
          jf.getManifest() == null
              ? null
              : jf.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
      if (main == null || main.isBlank()) {
        throw new UsageException(
            "application jar "
                + jar
                + " has no Main-Class in its manifest (expected: a runnable jar, or give the main class and --classpath)");
      }
      return main.trim();
    } catch (IOException e) {
      throw new UsageException("application jar " + jar + " cannot be read: " + e.getMessage());
    }
  }

  private static boolean contains(Path entry, String resource) {
    if (Files.isDirectory(entry)) {
      return Files.isRegularFile(entry.resolve(resource));
    }
    if (!Files.isRegularFile(entry)) {
      return false;
    }
    try (JarFile jf = new JarFile(entry.toFile())) {
      return jf.getEntry(resource) != null;
    } catch (IOException e) {
      return false;
    }
  }

  /** Top-level classes named {@code simpleName} in a jar or folder, fully qualified. */
  private static List<String> classesNamed(Path entry, String simpleName) {
    String suffix = "/" + simpleName + ".class";
    List<String> out = new ArrayList<>();
    if (Files.isDirectory(entry)) {
      try (Stream<Path> files = Files.walk(entry)) {
        files
            .map(p -> "/" + entry.relativize(p).toString().replace(File.separatorChar, '/'))
            .filter(p -> p.endsWith(suffix))
            .forEach(p -> out.add(toClassName(p.substring(1))));
      } catch (IOException e) {
        return out;
      }
    } else if (Files.isRegularFile(entry)) {
      try (JarFile jf = new JarFile(entry.toFile())) {
        Enumeration<? extends ZipEntry> en = jf.entries();
        while (en.hasMoreElements()) {
          String n = "/" + en.nextElement().getName();
          if (n.endsWith(suffix) && !n.startsWith("/META-INF/")) {
            out.add(toClassName(n.substring(1)));
          }
        }
      } catch (IOException e) {
        return out;
      }
    }
    return out;
  }

  private static String toClassName(String path) {
    return path.substring(0, path.length() - ".class".length()).replace('/', '.');
  }
}
