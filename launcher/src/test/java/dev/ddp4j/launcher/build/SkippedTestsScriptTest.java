package dev.ddp4j.launcher.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/SkippedTests.java}, the summary that ends {@code scripts/test.sh}: run as the
 * script runs it, over surefire reports of the form surefire 3 writes, in a module tree of its own.
 */
class SkippedTestsScriptTest {

  private static final Path SCRIPT = Path.of("..", "scripts", "SkippedTests.java");

  @Test
  void shouldGroupThisRunsSkippedTestsByReasonAndLeaveOutOlderReports(@TempDir Path root)
      throws Exception {
    Path marker = Files.createFile(root.resolve("marker"));
    Files.setLastModifiedTime(marker, FileTime.from(Instant.now().minusSeconds(60)));
    report(
        root.resolve("collectives/target/surefire-reports"),
        "dev.ddp4j.collectives.cuda.CudaGpuTest",
        skipped("a", "needs an NVIDIA GPU: no NVIDIA driver"),
        skipped("b", "needs an NVIDIA GPU: no NVIDIA driver"),
        "<testcase name=\"c\" classname=\"dev.ddp4j.collectives.cuda.CudaGpuTest\"/>");
    report(
        root.resolve("launcher/target/surefire-reports"),
        "dev.ddp4j.launcher.RealSlurmTest",
        skipped("srun", "slurm-wlm is not installed"),
        // A failed assumption, as surefire writes it with trimStackTrace off: no message attribute.
        "<testcase name=\"cuda\" classname=\"CLS\"><skipped"
            + " type=\"org.opentest4j.TestAbortedException\"><![CDATA[org.opentest4j.TestAbortedException:"
            + " Assumption failed: needs ND4J's CUDA backend\n\tat org.junit.jupiter.api.Assumptions"
            + ".throwAssumptionFailed(Assumptions.java:321)\n]]></skipped></testcase>");
    Path old =
        report(
            root.resolve("examples/target/surefire-reports"),
            "dev.ddp4j.examples.OldTest",
            skipped("x", "a reason from an earlier run"));
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minusSeconds(3600)));

    String out = run(marker, root);

    assertThat(out)
        .contains("Skipped tests: 4 of 5 in 2 report(s) from this run, by reason:")
        .contains("  2  needs an NVIDIA GPU: no NVIDIA driver\n       (CudaGpuTest x2)")
        .contains("  1  slurm-wlm is not installed\n       (RealSlurmTest)")
        .contains("  1  needs ND4J's CUDA backend\n       (RealSlurmTest)")
        .doesNotContain("earlier run");
  }

  @Test
  void shouldSaySoWhenTheBuildWroteNoReports(@TempDir Path root) throws Exception {
    Path marker = Files.createFile(root.resolve("marker"));
    assertThat(run(marker, root)).contains("no test reports from this run");
  }

  private static String skipped(String name, String reason) {
    return "<testcase name=\""
        + name
        + "\" classname=\"CLS\" time=\"0.0\"><skipped message=\""
        + reason
        + "\"/></testcase>";
  }

  private static Path report(Path dir, String cls, String... cases) throws Exception {
    Files.createDirectories(dir);
    String xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\""
            + cls
            + "\">\n"
            + String.join("\n", cases).replace("\"CLS\"", "\"" + cls + "\"")
            + "\n</testsuite>\n";
    return Files.writeString(dir.resolve("TEST-" + cls + ".xml"), xml);
  }

  private static String run(Path marker, Path root) throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                SCRIPT.toString(),
                marker.toString(),
                root.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
