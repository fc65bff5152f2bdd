package dev.ddp4j.launcher.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code launcher.jar doctor} as a real process on this machine: line format and exit status. */
class DoctorProcessTest {

  @Test
  void doctorOnThisMachineShouldPrintOneLinePerCheckAndExitByTheWorst() throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.ddp4j.launcher.LauncherMain",
                "doctor",
                "--master-port=0")
            .redirectErrorStream(true)
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("doctor finished within 120 s").isTrue();
    List<String> lines = new String(out, StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSizeGreaterThanOrEqualTo(12);
    List<String> checks = lines.subList(0, lines.size() - 1);
    assertThat(checks)
        .allMatch(l -> l.matches("(OK  |WARN|FAIL) [a-z0-9-]+ +\\S.*"), "a check line");
    assertThat(checks.stream().map(l -> l.substring(5).split(" +")[0]).distinct())
        .contains(
            "gpu",
            "nd4j",
            "peer-access",
            "shm",
            "numa",
            "network",
            "rdma",
            "store-port",
            "secret",
            "memlock",
            "ptrace");
    assertThat(checks)
        .filteredOn(l -> l.startsWith("WARN") || l.startsWith("FAIL"))
        .allMatch(l -> l.contains(" -- fix: "));
    boolean failed = checks.stream().anyMatch(l -> l.startsWith("FAIL"));
    assertThat(lines.get(lines.size() - 1))
        .matches("doctor on \\S+: (OK|WARN|FAIL) \\(\\d+ checks, \\d+ WARN, \\d+ FAIL\\)");
    assertThat(p.exitValue()).as(String.join("\n", lines)).isEqualTo(failed ? 1 : 0);
  }
}
