package dev.ddp4j.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Checks that a module's packages are marked as not ddp4j's API: each package of its main sources
 * has a package-info.java annotated {@code @ApiStatus.Internal}, and the compiled package-info
 * class carries the annotation (what an IDE reads from the jar to flag a user's use of it).
 */
public final class InternalPackages {

  private static final String MARK = "@ApiStatus.Internal";
  private static final byte[] COMPILED_MARK =
      "Lorg/jetbrains/annotations/ApiStatus$Internal;".getBytes(StandardCharsets.UTF_8);

  private InternalPackages() {}

  /** Every package (as {@code a.b.c}) with a Java file under {@code sourceRoot}. */
  public static List<String> packages(Path sourceRoot) throws IOException {
    try (Stream<Path> files = Files.walk(sourceRoot)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .map(p -> sourceRoot.relativize(p.getParent()).toString().replace('/', '.'))
          .distinct()
          .sorted()
          .toList();
    }
  }

  /**
   * The packages of {@code sourceRoot} without the mark, each with what is missing: the source's
   * annotation or, in {@code classesRoot}, the compiled one.
   */
  public static List<String> unmarked(Path sourceRoot, Path classesRoot) throws IOException {
    List<String> problems = new ArrayList<>();
    for (String pkg : packages(sourceRoot)) {
      Path dir = Path.of(pkg.replace('.', '/'));
      Path info = sourceRoot.resolve(dir).resolve("package-info.java");
      Path compiled = classesRoot.resolve(dir).resolve("package-info.class");
      if (!Files.exists(info) || !Files.readString(info).contains(MARK)) {
        problems.add(pkg + ": no package-info.java with " + MARK);
      } else if (!Files.exists(compiled) || !contains(Files.readAllBytes(compiled))) {
        problems.add(pkg + ": " + compiled + " does not carry " + MARK);
      }
    }
    return problems;
  }

  private static boolean contains(byte[] bytes) {
    outer:
    for (int i = 0; i + COMPILED_MARK.length <= bytes.length; i++) {
      for (int j = 0; j < COMPILED_MARK.length; j++) {
        if (bytes[i + j] != COMPILED_MARK[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
