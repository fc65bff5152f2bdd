package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.dataset.DataSet;

/**
 * N ranks started by the launcher, each fitting B examples per step, must end where one process
 * fitting the N*B concatenated examples ends, and agree with each other bit for bit after every
 * step.
 */
class DdpParityTest {

  private static final int STEPS = 5;
  private static final int LOCAL_BATCH = 6;

  private static float[][] reference(String kind, String updater, int ranks) {
    Model m =
        kind.equals("cg")
            ? ParityModels.graph(updater, 1234)
            : ParityModels.multiLayer(updater, 1234);
    float[][] out = new float[STEPS + 1][];
    out[0] = m.params().dup().data().asFloat();
    for (int s = 0; s < STEPS; s++) {
      DataSet global = ParityModels.globalBatch(99, s, LOCAL_BATCH * ranks);
      if (m instanceof MultiLayerNetwork) {
        ((MultiLayerNetwork) m).fit(global);
      } else {
        ((ComputationGraph) m).fit(global);
      }
      out[s + 1] = m.params().dup().data().asFloat();
    }
    return out;
  }

  static void assertClose(float[] actual, float[] expected, double relative, String what) {
    assertThat(actual).as(what + ": parameter count").hasSameSizeAs(expected);
    double worst = 0;
    int at = -1;
    for (int i = 0; i < expected.length; i++) {
      double err = Math.abs(actual[i] - expected[i]) / (Math.abs(expected[i]) + 1e-2);
      if (err > worst) {
        worst = err;
        at = i;
      }
    }
    assertThat(worst)
        .as(
            "%s: worst relative error %.3g at parameter %d (%f vs %f)",
            what, worst, at, at < 0 ? 0 : actual[at], at < 0 ? 0 : expected[at])
        .isLessThanOrEqualTo(relative);
  }

  // MultiLayerNetwork with Adam on 2 and 4 ranks is UpdaterParityTest's (against the noise floor).
  @ParameterizedTest(name = "{0} ranks, {1}, {2}")
  @CsvSource({"2,mln,sgd", "2,cg,sgd", "4,cg,adam"})
  void shouldTrainLikeOneProcessOnTheConcatenatedBatches(
      int ranks, String kind, String updater, @TempDir Path dir) throws Exception {
    LaunchedJob.runOk(
        ranks,
        Map.of(),
        ParityWorker.class.getName(),
        kind,
        updater,
        "" + STEPS,
        "" + LOCAL_BATCH,
        dir.toString());
    float[][] expected = reference(kind, updater, ranks);
    List<float[]> rank0 = LaunchedJob.snapshots(dir.resolve("rank0.params"));
    assertThat(rank0).hasSize(STEPS + 1);
    for (int r = 1; r < ranks; r++) {
      List<float[]> other = LaunchedJob.snapshots(dir.resolve("rank" + r + ".params"));
      for (int s = 0; s <= STEPS; s++) {
        assertThat(other.get(s))
            .as("rank %d equals rank 0 after step %d", r, s)
            .isEqualTo(rank0.get(s));
      }
    }
    for (int s = 0; s <= STEPS; s++) {
      assertClose(rank0.get(s), expected[s], 1e-5, "after step " + s);
    }
  }

  /**
   * A GPU machine whose ND4J computes on the CPU: the group is a cuda group (its device half stood
   * in), gradients go through its host half, and training still matches one process; rank 0 says
   * where the model computes.
   */
  @Test
  void shouldTrainLikeOneProcessOverACudaGroupWhileNd4jComputesOnTheCpu(@TempDir Path dir)
      throws Exception {
    String output =
        LaunchedJob.runOk(
            2,
            Map.of("DDP4J_BACKEND", "standin-cuda"),
            ParityWorker.class.getName(),
            "cg",
            "adam",
            "" + STEPS,
            "" + LOCAL_BATCH,
            dir.toString());
    assertThat(output)
        .contains(
            "DdpModel: the model computes on the CPU (ND4J's CPU backend, nd4j-native) and its"
                + " gradients take the cuda group's host half (shared memory, sockets)");
    float[][] expected = reference("cg", "adam", 2);
    List<float[]> rank0 = LaunchedJob.snapshots(dir.resolve("rank0.params"));
    List<float[]> rank1 = LaunchedJob.snapshots(dir.resolve("rank1.params"));
    for (int s = 0; s <= STEPS; s++) {
      assertThat(rank1.get(s)).as("rank 1 equals rank 0 after step %d", s).isEqualTo(rank0.get(s));
      assertClose(rank0.get(s), expected[s], 1e-5, "after step " + s);
    }
  }

  @Test
  void fp16CompressionShouldStayCloseToExactTraining(@TempDir Path dir) throws Exception {
    LaunchedJob.runOk(
        2,
        Map.of(),
        ParityWorker.class.getName(),
        "mln",
        "sgd",
        "" + STEPS,
        "" + LOCAL_BATCH,
        dir.toString(),
        "fp16");
    float[][] expected = reference("mln", "sgd", 2);
    List<float[]> rank0 = LaunchedJob.snapshots(dir.resolve("rank0.params"));
    assertThat(LaunchedJob.snapshots(dir.resolve("rank1.params")).get(STEPS))
        .isEqualTo(rank0.get(STEPS));
    // fp16 keeps ~3 decimal digits of each gradient: close to exact training, but not equal to it.
    assertClose(rank0.get(STEPS), expected[STEPS], 1e-2, "fp16 after " + STEPS + " steps");
  }

  /**
   * DDP4J_COMM_HOOK=powersgd on launched ranks: plain all-reduce (one-process parity) before its
   * start step, compressed after it, and the same parameters on every rank after every step.
   */
  @Test
  void powerSgdFromTheEnvironmentShouldKeepRanksIdenticalAndBeExactBeforeItsStartStep(
      @TempDir Path dir) throws Exception {
    String output =
        LaunchedJob.runOk(
            2,
            Map.of(
                "DDP4J_COMM_HOOK", "powersgd",
                "DDP4J_POWERSGD_RANK", "1",
                "DDP4J_POWERSGD_START_STEP", "2",
                "DDP4J_DEBUG", "INFO"),
            ParityWorker.class.getName(),
            "cg",
            "sgd",
            "" + STEPS,
            "" + LOCAL_BATCH,
            dir.toString());
    assertThat(output).contains("comm hook powersgd on host memory");
    float[][] expected = reference("cg", "sgd", 2);
    List<float[]> rank0 = LaunchedJob.snapshots(dir.resolve("rank0.params"));
    List<float[]> rank1 = LaunchedJob.snapshots(dir.resolve("rank1.params"));
    for (int s = 0; s <= STEPS; s++) {
      assertThat(rank1.get(s)).as("rank 1 equals rank 0 after step %d", s).isEqualTo(rank0.get(s));
    }
    for (int s = 0; s <= 2; s++) {
      assertClose(rank0.get(s), expected[s], 1e-5, "plain all-reduce after step " + s);
    }
    assertThat(rank0.get(STEPS)).as("compressed from step 2 on").isNotEqualTo(expected[STEPS]);
  }

  @Test
  void theFirstBucketShouldStartBeforeTheBackwardOfLayerZeroEnds(@TempDir Path dir)
      throws Exception {
    String pattern = dir.resolve("trace.json").toString();
    LaunchedJob.runOk(
        2,
        Map.of("DDP4J_TIMELINE", pattern),
        ParityWorker.class.getName(),
        "mln",
        "sgd",
        "3",
        "64",
        dir.toString());
    String trace = Files.readString(dir.resolve("trace.rank0.json"));
    TraceEvents events = TraceEvents.parse(trace);
    // Per step: the first bucket (the last hidden layers) is launched from layer 2's backward hook,
    // so it
    // starts while layer 0 is still in backward.
    double firstBucketStart = events.firstStart("allreduce bucket 0");
    double layer0BackwardEnd = events.firstEnd("backward layer 0");
    assertThat(firstBucketStart).isLessThan(layer0BackwardEnd);
    assertThat(events.count("allreduce bucket")).isGreaterThanOrEqualTo(3 * 2);
  }
}
