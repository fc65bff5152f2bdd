package dev.ddp4j.collectives.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.spi.Settings;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where DDP4J_DEBUG's lines go, in child JVMs with the class paths users have: through a real SLF4J
 * binding (slf4j-simple) when there is one, to stderr with slf4j-nop (as the examples bind it), and
 * never with an SLF4J warning.
 */
class DebugLogTest {

  /** The child: logs one line at each level as rank 3. */
  public static final class Child {
    public static void main(String[] args) {
      DebugLog log = new DebugLog(Settings.process(), 3);
      new DebugLog(Settings.process(), 3); // a second group or model: an unknown level is told once
      log.log(DebugLog.Level.WARN, "slow hop 0 -> 1");
      log.log(DebugLog.Level.INFO, "Channel 00/01 : 3[3] -> 0[0] via SHM over NODE");
      log.log(DebugLog.Level.TRACE, "allReduce #0 took 12 us");
    }
  }

  @Test
  void withAnSlf4jBindingLinesShouldGoThroughItAndItsLevelShouldDecide() throws Exception {
    String simple = System.getProperty("ddp4j.test.slf4jSimpleJar");
    assertThat(simple).as("surefire's argLine sets ddp4j.test.slf4jSimpleJar").isNotBlank();
    assertThat(Path.of(simple)).exists();
    String out =
        run("TRACE", System.getProperty("java.class.path") + File.pathSeparator + simple, true);
    assertThat(out)
        .contains("WARN dev.ddp4j - [3] slow hop 0 -> 1")
        .contains("INFO dev.ddp4j - [3] Channel 00/01 : 3[3] -> 0[0] via SHM over NODE")
        // TRACE maps to debug, below slf4j-simple's default level: the binding decides.
        .doesNotContain("took 12 us")
        .doesNotContain("DDP4J INFO")
        .doesNotContain("SLF4J:");
  }

  @Test
  void withSlf4jNopLinesShouldGoToStderrAsNcclStyleLinesGatedByDdp4jDebug() throws Exception {
    String out = run("INFO", System.getProperty("java.class.path"), false);
    assertThat(out)
        .contains(" [3] DDP4J WARN slow hop 0 -> 1")
        .contains(" [3] DDP4J INFO Channel 00/01 : 3[3] -> 0[0] via SHM over NODE")
        .doesNotContain("took 12 us")
        .doesNotContain("SLF4J:");
  }

  @Test
  void anUnknownLevelShouldLogAtWarnAndSaySoOnce() throws Exception {
    String out = run("verbose", System.getProperty("java.class.path"), false);
    assertThat(out).contains(" [3] DDP4J WARN slow hop 0 -> 1").doesNotContain("via SHM");
    String told =
        "DDP4J WARN DDP4J_DEBUG=verbose is not a level (expected: WARN, INFO or TRACE; also VERSION,"
            + " DETAIL); logging at WARN";
    assertThat(out).containsOnlyOnce(told);
  }

  private static String run(String level, String classPath, boolean withoutNop) throws Exception {
    String cp = classPath;
    if (withoutNop) {
      // slf4j-simple beside slf4j-nop would be two bindings: leave the nop one out.
      List<String> kept = new ArrayList<>();
      for (String e : classPath.split(File.pathSeparator)) {
        if (!e.contains("slf4j-nop")) {
          kept.add(e);
        }
      }
      cp = String.join(File.pathSeparator, kept);
    }
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                cp,
                Child.class.getName())
            .redirectErrorStream(true);
    pb.environment().put("DDP4J_DEBUG", level);
    pb.environment().remove("NCCL_DEBUG");
    Path log = Files.createTempFile("ddp4j-debuglog", ".txt");
    pb.redirectOutput(log.toFile());
    try {
      Process p = pb.start();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String out = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isZero();
      return out;
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
