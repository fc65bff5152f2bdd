package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgramClasspathTest {

  @TempDir Path tmp;

  @Test
  void aWildcardShouldBecomeTheFolderJarsAsJavaExpandsIt() throws IOException {
    Path lib = Files.createDirectories(tmp.resolve("lib"));
    Files.createFile(lib.resolve("b.jar"));
    Files.createFile(lib.resolve("A.JAR"));
    Files.createFile(lib.resolve("notes.txt"));
    Files.createDirectories(lib.resolve("nested.jar"));
    Files.createDirectories(lib.resolve("sub")).resolve("c.jar").toFile().createNewFile();
    Path classes = Files.createDirectories(tmp.resolve("classes"));
    String cp = classes + File.pathSeparator + lib + File.separator + "*" + File.pathSeparator;
    assertThat(ProgramClasspath.files(cp))
        .containsExactly(classes, lib.resolve("A.JAR"), lib.resolve("b.jar"));
    assertThat(ProgramClasspath.split(cp)).containsExactly(classes.toString(), lib + "/*");
    assertThat(ProgramClasspath.missing(cp + File.pathSeparator + tmp.resolve("gone.jar")))
        .containsExactly(tmp.resolve("gone.jar").toString());
  }

  /** As the JVM does: a jar's manifest Class-Path adds its entries, relative to the jar, once. */
  @Test
  void aJarsManifestClassPathShouldAddItsEntriesAfterIt() throws IOException {
    Path lib = Files.createDirectories(tmp.resolve("lib"));
    Path dep = jarWithClassPath(lib.resolve("dep.jar"), "other.jar");
    Path other = jarWithClassPath(lib.resolve("other.jar"), "dep.jar");
    Path app = jarWithClassPath(tmp.resolve("app.jar"), "lib/dep.jar lib/missing.jar");
    assertThat(ProgramClasspath.files(app + File.pathSeparator + dep))
        .containsExactly(app, dep, other, lib.resolve("missing.jar"));
  }

  private static Path jarWithClassPath(Path file, String classPath) throws IOException {
    java.util.jar.Manifest m = new java.util.jar.Manifest();
    m.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(java.util.jar.Attributes.Name.CLASS_PATH, classPath);
    try (java.util.jar.JarOutputStream out =
        new java.util.jar.JarOutputStream(Files.newOutputStream(file), m)) {
      out.flush();
    }
    return file;
  }
}
