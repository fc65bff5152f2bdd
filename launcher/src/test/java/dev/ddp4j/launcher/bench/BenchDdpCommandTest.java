package dev.ddp4j.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code bench ddp}'s command line; its GPU run is in bench/ddp-gpu-vs-pytorch.md. */
class BenchDdpCommandTest {

  @TempDir Path dir;

  private static int run(StringWriter err, String... args) {
    CommandLine cl = new CommandLine(new BenchCommand());
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  @Test
  void shouldBeTheDdpModeOfBench() {
    assertThat(new CommandLine(new BenchCommand()).getSubcommands()).containsKey("ddp");
  }

  @Test
  void shouldRefuseToStartWithoutTheModelsLayers() {
    StringWriter err = new StringWriter();
    assertThat(run(err, "ddp", "--backward-us", "1500")).isEqualTo(2);
    assertThat(err.toString()).contains("--layers");
  }

  @Test
  void shouldNameTheClasspathFlagWhenDdpRuntimeIsMissing() {
    StringWriter err = new StringWriter();
    int status = run(err, "ddp", "--layers", "2x1M", "--backward-us", "100");
    assertThat(status).isNotZero();
    assertThat(err.toString()).contains("--classpath").contains(BenchDdpCommand.WORKER);
  }

  @Test
  void shouldFindTheWorkerInAJarOrAFolderOfTheClassPath() throws Exception {
    String entry = BenchDdpCommand.WORKER.replace('.', '/') + ".class";
    Path jar = dir.resolve("runtime.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new ZipEntry(entry));
      out.closeEntry();
    }
    Path folder = dir.resolve("classes");
    Files.createDirectories(folder.resolve(entry).getParent());
    Files.createFile(folder.resolve(entry));
    assertThat(BenchDdpCommand.workerOn(jar.toString())).isTrue();
    assertThat(BenchDdpCommand.workerOn(dir + java.io.File.pathSeparator + folder)).isTrue();
    assertThat(BenchDdpCommand.workerOn(dir.toString())).isFalse();
  }
}
