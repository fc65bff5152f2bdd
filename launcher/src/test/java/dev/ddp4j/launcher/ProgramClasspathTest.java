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
}
