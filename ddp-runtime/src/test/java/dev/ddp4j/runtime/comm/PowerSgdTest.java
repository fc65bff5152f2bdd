package dev.ddp4j.runtime.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.bucket.ParamLayout;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * PowerSGD on 2 real cpu ranks: a low-rank sum is reproduced exactly, what compression drops is
 * kept per rank and sent later (nothing is lost), every rank applies the same gradient, plain
 * all-reduce runs before the start step, and a small model learns as well as with all-reduce.
 */
class PowerSgdTest {

  private static final int ROWS = 16;
  private static final int COLS = 12;
  private static final int LENGTH = ROWS * COLS + COLS;

  // A bucket of one weight matrix [16, 12] in DL4J's 'f' order and its bias [12].
  private static final List<ParamLayout> PARAMS =
      List.of(
          new ParamLayout(0, "layer 0 (DenseLayer)", "W", 0, new long[] {ROWS, COLS}, 'f'),
          new ParamLayout(0, "layer 0 (DenseLayer)", "b", ROWS * COLS, new long[] {COLS}, 'c'));

  /**
   * Runs {@code hook} on one bucket holding {@code w} (16 x 12) and {@code b}; returns the bucket.
   */
  private static INDArray reduce(
      CommHook hook, ProcessGroup group, long step, INDArray w, INDArray b) {
    INDArray buffer = Nd4j.create(DataType.FLOAT, LENGTH);
    GradBucket bucket =
        new GradBucket(0, true, step, buffer, 0, PARAMS, ArrayAllReduce.host(group));
    bucket.gradient(PARAMS.get(0)).assign(w);
    bucket.gradient(PARAMS.get(1)).assign(b);
    CommHook.Pending p = hook.start(group, bucket);
    p.work().await(group.timeout());
    p.finish();
    return buffer;
  }

  private static INDArray weights(INDArray buffer) {
    return buffer.get(NDArrayIndex.interval(0, ROWS * COLS)).reshape('f', ROWS, COLS);
  }

  private static INDArray bias(INDArray buffer) {
    return buffer.get(NDArrayIndex.interval(ROWS * COLS, LENGTH));
  }

  private static INDArray vector(long seed, int n) {
    return HookModels.gaussian(seed, n, 1);
  }

  @Test
  void aRankOneSumShouldBeReproducedExactlyAndIdenticallyOnEveryRank() throws Exception {
    INDArray u = vector(1, ROWS);
    INDArray v = vector(2, COLS);
    List<INDArray> out =
        ThreadRanks.run(
            2,
            (rank, group) -> {
              CommHook hook = CommHooks.powerSgd(1, 0);
              INDArray w = u.mmul(v.transpose()).muli(rank + 1); // ranks send 1x and 2x u v^T
              INDArray b = vector(10 + rank, COLS).reshape(COLS);
              return reduce(hook, group, 0, w, b);
            });
    INDArray expected = u.mmul(v.transpose()).muli(3);
    assertThat(
            weights(out.get(0)).equalsWithEps(expected, 1e-4 * expected.amaxNumber().doubleValue()))
        .as("rank-1 sum reproduced")
        .isTrue();
    INDArray biasSum = vector(10, COLS).reshape(COLS).add(vector(11, COLS).reshape(COLS));
    assertThat(bias(out.get(0)).equalsWithEps(biasSum, 1e-6))
        .as("bias all-reduced exactly")
        .isTrue();
    assertThat(out.get(1).toFloatVector()).containsExactly(out.get(0).toFloatVector());
  }

  @Test
  void errorFeedbackShouldKeepWhatCompressionDroppedAndSendItLater() throws Exception {
    // Rank 2, compressed at rank 1: the second direction is dropped at first, then sent.
    INDArray a =
        vector(3, ROWS)
            .mmul(vector(4, COLS).transpose())
            .muli(3)
            .addi(vector(5, ROWS).mmul(vector(6, COLS).transpose()));
    int zeroSteps = 8;
    List<double[]> perRank =
        ThreadRanks.run(
            2,
            (rank, group) -> {
              PowerSgd hook = (PowerSgd) CommHooks.powerSgd(1, 0);
              INDArray zero = Nd4j.zeros(DataType.FLOAT, ROWS, COLS);
              INDArray sent = Nd4j.zeros(DataType.FLOAT, ROWS, COLS); // sum of outputs / 2 so far
              double[] norms = new double[zeroSteps + 2];
              for (int step = 0; step <= zeroSteps; step++) {
                INDArray g = step == 0 ? a : zero; // every rank sends A once, then nothing
                INDArray out =
                    weights(reduce(hook, group, step, g, Nd4j.zeros(DataType.FLOAT, COLS)));
                sent.addi(out.div(2));
                INDArray residual = Nd4j.createFromArray(hook.residual(0)).reshape('c', ROWS, COLS);
                // Nothing is lost: what was sent plus what is kept is what was put in.
                INDArray kept = sent.add(residual);
                if (!kept.equalsWithEps(a, 1e-4 * a.amaxNumber().doubleValue())) {
                  throw new AssertionError(
                      "step " + step + ": sent + residual != A: " + kept.sub(a));
                }
                norms[step] = residual.norm2Number().doubleValue();
              }
              norms[zeroSteps + 1] = a.norm2Number().doubleValue();
              return norms;
            });
    double[] norms = perRank.get(0);
    double aNorm = norms[zeroSteps + 1];
    assertThat(norms[0]).as("rank 1 cannot carry A at once").isGreaterThan(0.05 * aNorm);
    assertThat(norms[zeroSteps]).as("the residual is sent in later steps").isLessThan(0.01 * aNorm);
  }

  /** Params of every rank after {@code early} and after {@code steps} steps, rank by rank. */
  private static List<float[][]> train(CommHook[] hooks, int early, int steps) throws Exception {
    return ThreadRanks.run(
        2,
        (rank, group) -> {
          Model m = HookModels.model("mln", 8, 16);
          DdpOptions options =
              DdpOptions.builder()
                  .firstBucketBytes(64)
                  .bucketCapBytes(1024)
                  .commHook(hooks[rank])
                  .build();
          float[] atEarly = null;
          try (DdpModel<?> ddp = HookModels.wrap(m, group, options)) {
            for (int s = 0; s < steps; s++) {
              ddp.fit(HookModels.data(8, 100 * rank + s, 8));
              if (s + 1 == early) {
                atEarly = m.params().dup().toFloatVector();
              }
            }
          }
          return new float[][] {atEarly, m.params().dup().toFloatVector()};
        });
  }

  @Test
  void everyRankShouldHoldTheSameModelAndPlainAllReduceShouldRunBeforeTheStartStep()
      throws Exception {
    List<float[][]> plain =
        train(new CommHook[] {CommHooks.allReduce(), CommHooks.allReduce()}, 3, 8);
    List<float[][]> compressed =
        train(new CommHook[] {CommHooks.powerSgd(1, 3), CommHooks.powerSgd(1, 3)}, 3, 8);
    assertThat(compressed.get(1)[1])
        .as("same model on both ranks")
        .containsExactly(compressed.get(0)[1]);
    assertThat(compressed.get(0)[0]).as("steps 0-2 plain").containsExactly(plain.get(0)[0]);
    assertThat(compressed.get(0)[1]).as("steps 3-7 compressed").isNotEqualTo(plain.get(0)[1]);
  }

  @Test
  void aSmallModelShouldLearnAsWellAsWithAllReduce() throws Exception {
    double plain = accuracy(CommHooks::allReduce);
    double compressed = accuracy(() -> CommHooks.powerSgd(2, 10));
    assertThat(plain).as("all-reduce").isGreaterThan(0.8);
    assertThat(compressed).as("powersgd rank 2 vs all-reduce " + plain).isGreaterThan(plain - 0.05);
  }

  /** Held-out accuracy after 3 epochs of 2 ranks x 30 batches of 16. */
  private static double accuracy(java.util.function.Supplier<CommHook> hooks) throws Exception {
    List<Double> acc =
        ThreadRanks.run(
            2,
            (rank, group) -> {
              var m =
                  (org.deeplearning4j.nn.multilayer.MultiLayerNetwork)
                      HookModels.model("mln", 8, 32);
              DdpOptions options = DdpOptions.builder().commHook(hooks.get()).build();
              DataSet test = HookModels.data(8, 999, 500);
              try (DdpModel<?> ddp = HookModels.wrap(m, group, options)) {
                double before = m.score(test);
                for (int epoch = 0; epoch < 3; epoch++) {
                  for (int b = 0; b < 30; b++) {
                    ddp.fit(HookModels.data(8, 1000 * rank + b, 16));
                  }
                }
                assertThat(m.score(test)).as("held-out loss").isLessThan(before * 0.7);
                Evaluation e = new Evaluation(HookModels.OUT);
                e.eval(test.getLabels(), ddp.output(test.getFeatures()));
                return e.accuracy();
              }
            });
    return acc.get(0);
  }

  @Test
  void aRankBelowOneShouldBeRefusedWithTheFix() {
    assertThatThrownBy(() -> CommHooks.powerSgd(0, 0))
        .isInstanceOf(ConfigException.class)
        .hasMessage("PowerSGD rank 0 (expected: >= 1, e.g. 1 to 4; DDP4J_POWERSGD_RANK)");
  }
}
