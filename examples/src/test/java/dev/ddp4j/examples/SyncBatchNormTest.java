package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * BatchNormalization under DdpModel, across real processes started by the launcher: with
 * synchronised batch statistics, 2 ranks with B examples each train like one process on the 2B
 * examples (running statistics included); without, they do not (each rank normalises with its own
 * batch), yet every rank still holds the same parameters and running statistics.
 */
class SyncBatchNormTest {

  private static final int STEPS = 4;
  private static final int LOCAL_BATCH = 6;
  private static final int RANKS = 2;

  private static float[][] reference(String kind) {
    MultiLayerNetwork net = BatchNormModels.model(kind, 1234);
    float[][] out = new float[STEPS + 1][];
    out[0] = net.params().dup().data().asFloat();
    for (int s = 0; s < STEPS; s++) {
      net.fit(BatchNormModels.globalBatch(kind, s, LOCAL_BATCH * RANKS));
      out[s + 1] = net.params().dup().data().asFloat();
    }
    return out;
  }

  private static List<float[]> run(String kind, String sync, Path dir) throws Exception {
    LaunchedJob.runOk(
        RANKS,
        Map.of("DDP4J_SYNC_BATCHNORM", sync),
        BatchNormWorker.class.getName(),
        kind,
        "" + STEPS,
        "" + LOCAL_BATCH,
        dir.toString());
    List<float[]> rank0 = LaunchedJob.snapshots(dir.resolve("rank0.params"));
    List<float[]> rank1 = LaunchedJob.snapshots(dir.resolve("rank1.params"));
    assertThat(rank0).hasSize(STEPS + 1);
    for (int s = 0; s <= STEPS; s++) {
      assertThat(rank1.get(s)).as("rank 1 equals rank 0 after step %d", s).isEqualTo(rank0.get(s));
    }
    return rank0;
  }

  /** Positions of the BatchNormalization layer's running mean and log10 std in the flat params. */
  private static int[] runningStatisticIndices(String kind) {
    MultiLayerNetwork net = BatchNormModels.model(kind, 1);
    net.setParams(Nd4j.arange(net.numParams()).castTo(DataType.FLOAT).reshape(1, -1));
    float[] mean = net.getLayer(1).getParam("mean").dup().data().asFloat();
    float[] logStd = net.getLayer(1).getParam("log10stdev").dup().data().asFloat();
    int[] out = new int[mean.length + logStd.length];
    for (int i = 0; i < mean.length; i++) {
      out[i] = (int) mean[i];
    }
    for (int i = 0; i < logStd.length; i++) {
      out[mean.length + i] = (int) logStd[i];
    }
    return out;
  }

  private static float[] pick(float[] params, int[] indices) {
    float[] out = new float[indices.length];
    for (int i = 0; i < indices.length; i++) {
      out[i] = params[indices[i]];
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dense", "cnn"})
  void withSyncBatchNormTwoRanksShouldTrainLikeOneProcessOnTheConcatenatedBatch(
      String kind, @TempDir Path dir) throws Exception {
    List<float[]> rank0 = run(kind, "1", dir);
    float[][] expected = reference(kind);
    int[] running = runningStatisticIndices(kind);
    for (int s = 1; s <= STEPS; s++) {
      DdpParityTest.assertClose(rank0.get(s), expected[s], 1e-4, kind + " after step " + s);
      DdpParityTest.assertClose(
          pick(rank0.get(s), running),
          pick(expected[s], running),
          1e-4,
          kind + " running statistics after step " + s);
    }
  }

  @Test
  void withoutSyncBatchNormRanksShouldAgreeButDifferFromOneProcess(@TempDir Path dir)
      throws Exception {
    List<float[]> rank0 = run("dense", "0", dir);
    float[][] expected = reference("dense");
    int[] running = runningStatisticIndices("dense");
    float[] start = pick(rank0.get(0), running);
    float[] end = pick(rank0.get(STEPS), running);
    assertThat(end).as("the running statistics moved during training").isNotEqualTo(start);
    // Each rank normalised with its own half's statistics, so the parameters (and the running
    // variance, an average of per-rank variances) are not those of one process on the whole batch.
    assertThat(NoiseFloorParity.worstRelative(rank0.get(STEPS), expected[STEPS]))
        .isGreaterThan(1e-3);
    assertThat(NoiseFloorParity.worstRelative(end, pick(expected[STEPS], running)))
        .isGreaterThan(1e-3);
  }
}
