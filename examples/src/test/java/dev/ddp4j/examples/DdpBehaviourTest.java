package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.runtime.checkpoint.Checkpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * noSync accumulation, uneven inputs (with and without join), and checkpoint resume, each across
 * real processes.
 */
class DdpBehaviourTest {

  @Test
  void noSyncShouldApplyTheMeanOfEveryAccumulatedExampleOfEveryRank(@TempDir Path dir)
      throws Exception {
    int ranks = 2;
    LaunchedJob.runOk(ranks, Map.of(), ScenarioWorker.class.getName(), "nosync", dir.toString());
    MultiLayerNetwork ref = ParityModels.multiLayer("adam", 1234);
    for (int s = 0; s < 2; s++) {
      ref.fit(
          ParityModels.globalBatch(
              7, s, ScenarioWorker.MICRO_STEPS * ScenarioWorker.MICRO * ranks));
    }
    float[] rank0 = ScenarioWorker.fromText(Files.readString(dir.resolve("rank0.txt")));
    float[] rank1 = ScenarioWorker.fromText(Files.readString(dir.resolve("rank1.txt")));
    assertThat(rank1).isEqualTo(rank0);
    DdpParityTest.assertClose(
        rank0, ref.params().dup().data().asFloat(), 1e-5, "after 2 accumulated steps");
  }

  @Test
  void noSyncShouldRefuseTruncatedBpttInOneLine(@TempDir Path dir) throws Exception {
    LaunchedJob.runOk(1, Map.of(), ScenarioWorker.class.getName(), "nosync-tbptt", dir.toString());
    assertThat(Files.readString(dir.resolve("rank0.txt")))
        .startsWith("noSync() on a model trained with truncated BPTT")
        .contains("BackpropType.Standard")
        .doesNotContain("\n");
  }

  @Test
  void aRankThatRunsOutOfDataShouldEndTheEpochEverywhereInsteadOfHanging(@TempDir Path dir)
      throws Exception {
    String out =
        LaunchedJob.runOk(3, Map.of(), ScenarioWorker.class.getName(), "uneven", dir.toString());
    for (int r = 0; r < 3; r++) {
      // Rank 0 has 3 batches per epoch: every rank stops after 3 steps, twice; the step counts
      // block once per epoch (the first), the others are in flight during the step before.
      assertThat(Files.readString(dir.resolve("rank" + r + ".txt")))
          .isEqualTo("iterations 6 countWaits 2");
    }
    assertThat(out).contains("1 of 3 ranks ran out of data after 3 steps of this epoch");
  }

  @Test
  void underJoinARankWithNothingToReplayShouldFailOnEveryRankInOneLine(@TempDir Path dir)
      throws Exception {
    LaunchedJob.runOk(2, Map.of(), ScenarioWorker.class.getName(), "join-empty", dir.toString());
    for (int r = 0; r < 2; r++) {
      assertThat(Files.readString(dir.resolve("rank" + r + ".txt")))
          .isEqualTo(
              "join: 1 of 2 ranks have no batch in this epoch and never trained one, so they have"
                  + " nothing to replay the others' steps on (give every rank a batch)");
    }
  }

  @Test
  void aResumedRunShouldContinueLikeAnUninterruptedOne(@TempDir Path dir) throws Exception {
    Path straight = dir.resolve("straight");
    Path split = dir.resolve("split");
    String[] common = {"--examples", "1200", "--batch-size", "32"};
    LaunchedJob.runOk(
        2,
        Map.of(),
        "Train",
        concat(common, "--epochs", "3", "--checkpoint-dir", straight.toString()));
    LaunchedJob.runOk(
        2,
        Map.of(),
        "Train",
        concat(common, "--epochs", "1", "--checkpoint-dir", split.toString()));
    String resumed =
        LaunchedJob.runOk(
            2,
            Map.of(),
            "Train",
            concat(common, "--epochs", "3", "--checkpoint-dir", split.toString(), "--resume"));
    assertThat(resumed).contains("resumed at epoch 1").contains("final test accuracy");
    MultiLayerNetwork a = Checkpoints.loadMultiLayerNetwork(straight.resolve("latest.zip"));
    MultiLayerNetwork b = Checkpoints.loadMultiLayerNetwork(split.resolve("latest.zip"));
    assertThat(b.getEpochCount()).isEqualTo(3);
    DdpParityTest.assertClose(
        b.params().dup().data().asFloat(),
        a.params().dup().data().asFloat(),
        1e-6,
        "resumed vs uninterrupted");
  }

  @Test
  void theMainJobShouldLearn(@TempDir Path dir) throws Exception {
    String out =
        LaunchedJob.runOk(
            4,
            Map.of(),
            "Train",
            "--epochs",
            "3",
            "--examples",
            "8000",
            "--checkpoint-dir",
            dir.toString());
    assertThat(out).contains("4 ranks (cpu backend)").contains("examples/s");
    String last = out.substring(out.lastIndexOf("final test accuracy: ") + 21).trim();
    double accuracy = Double.parseDouble(last.substring(0, last.indexOf('%')));
    // 10 classes: chance is 10%; the teacher's labels are learnable well past it.
    assertThat(accuracy).isGreaterThan(60.0);
    assertThat(dir.resolve("latest.zip")).exists();
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
