package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code Train} prints before it trains: its help through the launcher, and a plain start. */
class TrainCommandLineTest {

  @Test
  void helpThroughTheLauncherShouldPrintOnceWithoutPicocliWarnings() throws Exception {
    LaunchedJob.Result r = LaunchedJob.run(3, Map.of(), 120, "Train", "--help");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output().split("Usage: Train", -1)).as(r.output()).hasSize(2);
    assertThat(r.output())
        .contains("[rank0]:Usage: Train")
        .contains("10% held out")
        .doesNotContain("[picocli WARN]");
  }

  @Test
  void oneRankShouldBeCountedAsOneRankWithItsEpochTimeAndRate(@TempDir Path dir) throws Exception {
    String out =
        LaunchedJob.runOk(
            1,
            Map.of(),
            "Train",
            "--epochs",
            "1",
            "--examples",
            "800",
            "--checkpoint-dir",
            dir.toString());
    assertThat(out)
        .contains("[rank0]:Train: 1 rank (cpu backend), 720 examples per rank per epoch")
        .contains("[rank0]:Train: the model on ND4J's CPU backend, gradients over the cpu group")
        .containsPattern(
            "epoch 1/1 done in [0-9.]+ s \\([0-9,]+ examples/s over 1 rank\\): test accuracy [0-9.]+%");
  }

  /** What Train does by default on a GPU machine, with the cuda group's device half stood in. */
  @Test
  void onACudaGroupTrainShouldSayWhereTheModelComputesAndReachItsAccuracy(@TempDir Path dir)
      throws Exception {
    String out =
        LaunchedJob.runOk(
            2,
            Map.of("DDP4J_BACKEND", "standin-cuda"),
            "Train",
            "--epochs",
            "2",
            "--examples",
            "4000",
            "--checkpoint-dir",
            dir.toString());
    assertThat(out)
        .contains("[rank0]:Train: 2 ranks (cuda backend), 1800 examples per rank per epoch")
        .contains(
            "[rank0]:Train: the model on ND4J's CPU backend, gradients over the cuda group's host"
                + " half (a cpu group)")
        .doesNotContain("[rank1]:Train: the model");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("final test accuracy: ([0-9.]+)%").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    // 2 epochs of 3600 examples: well above the 10% of guessing (the README's 5 x 21600 reach 84%)
    assertThat(Double.parseDouble(m.group(1))).as(out).isGreaterThan(40.0);
  }

  @Test
  void aBadFlagThroughTheLauncherShouldBeOneLineFromRankZero() throws Exception {
    LaunchedJob.Result r = LaunchedJob.run(2, Map.of(), 120, "Train", "--epochs", "many");
    assertThat(r.exitCode()).as(r.output()).isNotZero();
    assertThat(r.output())
        .contains("[rank0]:Train: Invalid value for option '--epochs': 'many' is not an int")
        .doesNotContain("[rank1]:Train:")
        .doesNotContain("Usage:");
  }

  @Test
  void aPlainJavaStartShouldSayRankIsNotSetInOneLine() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(java, "-cp", System.getProperty("java.class.path"), Train.class.getName()))
            .redirectErrorStream(true);
    for (String v : List.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")) {
      pb.environment().remove(v);
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isEqualTo(2);
    assertThat(out.strip().lines().toList())
        .as(out)
        .containsExactly(
            "Train: RANK is not set (start workers with `java -jar launcher.jar --nproc-per-node=N"
                + " ...`, which sets RANK, WORLD_SIZE, LOCAL_RANK and MASTER_ADDR/PORT, or set it"
                + " yourself)");
  }
}
