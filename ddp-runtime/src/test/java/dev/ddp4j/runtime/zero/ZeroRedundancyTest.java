package dev.ddp4j.runtime.zero;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.checkpoint.Checkpoints;
import dev.ddp4j.runtime.comm.CommHooks;
import dev.ddp4j.spi.Settings;
import dev.ddp4j.testing.InMemoryStore;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * ZeRO-1 on real cpu groups (one thread per rank, shared memory and sockets): N ranks with the
 * updater state sharded train like N ranks of plain DdpModel on the same batches, hold about 1/N of
 * the updater state each, write checkpoints with the full state, and resume from them.
 */
class ZeroRedundancyTest {

  private static final int STEPS = 4;
  private static final int BATCH = 5;

  /** What one rank saw: its parameters and updater state size after the steps. */
  record Rank(float[] params, long stateElements) {}

  private static DdpOptions options(boolean zero) {
    // Buckets of 42 (the output layer) and 481 (the hidden layers) elements.
    return DdpOptions.builder()
        .firstBucketBytes(64)
        .bucketCapBytes(2048)
        .zeroRedundancy(zero)
        .build();
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static DdpModel wrap(Model m, ProcessGroup group, DdpOptions options) {
    return m instanceof MultiLayerNetwork net
        ? DdpModel.wrap(net, group, options)
        : DdpModel.wrap((ComputationGraph) m, group, options);
  }

  private static ProcessGroup group(InMemoryStore store, int rank, int ranks) {
    WorkerEnvironment w =
        new WorkerEnvironment(rank, ranks, rank, ranks, 0, 0, InitMethod.tcp("127.0.0.1", 1));
    return TestGroups.create(w, store, Duration.ofSeconds(60), Map.of());
  }

  /**
   * Trains {@code steps} steps on {@code ranks} threads, each wrapping {@code models.apply(rank)};
   * with {@code checkpoint}, saves the model there afterwards (every rank calls save).
   */
  private static List<Rank> train(
      int ranks, IntFunction<Model> models, int firstStep, int steps, boolean zero, Path checkpoint)
      throws Exception {
    return train(ranks, models, firstStep, steps, zero, checkpoint, false);
  }

  /** As above; with {@code accumulate}, each step first accumulates a batch inside noSync(). */
  private static List<Rank> train(
      int ranks,
      IntFunction<Model> models,
      int firstStep,
      int steps,
      boolean zero,
      Path checkpoint,
      boolean accumulate)
      throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<Rank>> runs = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        Model m = models.apply(rank); // here: DL4J seeds ND4J's one random generator in init
        runs.add(
            pool.submit(
                () -> {
                  try (ProcessGroup group = group(store, rank, ranks)) {
                    long state;
                    try (DdpModel ddp = wrap(m, group, options(zero))) {
                      for (int s = firstStep; s < firstStep + steps; s++) {
                        if (accumulate) {
                          try (DdpModel.NoSync scope = ddp.noSync()) {
                            ddp.fit(ZeroModels.data(rank, 100 + s, BATCH + rank));
                          }
                        }
                        ddp.fit(ZeroModels.data(rank, s, BATCH));
                      }
                      state = ZeroRedundancy.updaterStateElements(m);
                      if (zero) {
                        assertThatThrownBy(
                                () ->
                                    ModelSerializer.writeModel(
                                        m, new ByteArrayOutputStream(), true))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("save with Checkpoints.save(model, group, file)");
                      }
                      if (checkpoint != null) {
                        Checkpoints.save(m, group, checkpoint);
                      }
                    }
                    return new Rank(m.params().dup().data().asFloat(), state);
                  }
                }));
      }
      List<Rank> out = new ArrayList<>();
      for (Future<Rank> f : runs) {
        out.add(f.get(180, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  static void assertClose(float[] actual, float[] expected, double relative, String what) {
    assertThat(actual).as(what + ": length").hasSameSizeAs(expected);
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
        .as("%s: worst relative error %.3g at element %d", what, worst, at)
        .isLessThanOrEqualTo(relative);
  }

  private static long fullState(String kind, String updater) {
    return ZeroRedundancy.updaterStateElements(ZeroModels.model(kind, updater));
  }

  @ParameterizedTest(name = "{0} ranks, {1}, {2}")
  @CsvSource({
    "2,mln,adam",
    "3,mln,adam",
    "2,cg,adam",
    "3,cg,adam",
    "2,mln,nesterovs",
    "3,cg,nesterovs",
    "2,mln,mixed",
    "3,mln,mixed",
    "3,cg,mixed"
  })
  void shouldTrainLikePlainDdpWithItsShareOfTheUpdaterState(int ranks, String kind, String updater)
      throws Exception {
    List<Rank> zero = train(ranks, r -> ZeroModels.model(kind, updater), 0, STEPS, true, null);
    List<Rank> plain = train(ranks, r -> ZeroModels.model(kind, updater), 0, STEPS, false, null);
    long full = fullState(kind, updater);
    long sum = 0;
    for (int r = 0; r < ranks; r++) {
      assertThat(zero.get(r).params())
          .as("rank %d holds rank 0's parameters bit for bit", r)
          .isEqualTo(zero.get(0).params());
      assertClose(zero.get(r).params(), plain.get(r).params(), 1e-5, "rank " + r + " vs plain DDP");
      assertThat(plain.get(r).stateElements()).isEqualTo(full);
      long mine = zero.get(r).stateElements();
      if (!updater.equals("mixed")) {
        // 1/N of each of the 2 buckets' state, plus its replicated tail (fewer than N elements,
        // at most 2 state elements each here). Mixed updaters keep different amounts per element.
        assertThat(mine)
            .as("rank %d's updater state", r)
            .isBetween(full / ranks - 1, full / ranks + 2L * 2 * ranks);
      }
      sum += mine;
    }
    // Every element's state once, and the tails' (fewer than N elements per bucket) on every rank.
    assertThat(sum)
        .as("the shards' updater state, summed over ranks")
        .isBetween(full, full + (ranks - 1) * 2L * 2 * ranks);
    assertThat(zero.get(0).params())
        .as("training moved the parameters")
        .isNotEqualTo(ZeroModels.model(kind, updater).params().data().asFloat());
  }

  @Test
  void adamStateShouldShrinkToAThirdOnThreeRanks() throws Exception {
    List<Rank> zero = train(3, r -> ZeroModels.model("mln", "adam"), 0, 1, true, null);
    long params = ZeroModels.model("mln", "adam").numParams();
    assertThat(fullState("mln", "adam")).isEqualTo(2 * params); // 1046: m and v
    // Buckets of 42 (no tail on 3 ranks) and 481 (160 per rank + a tail of 1): (14 + 161) x 2.
    for (Rank r : zero) {
      assertThat(r.stateElements()).isEqualTo(2 * (14 + 160 + 1));
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"mln", "cg"})
  void aCheckpointShouldHoldTheFullStateAndResumeLikePlainDdp(String kind, @TempDir Path dir)
      throws Exception {
    Path zeroFile = dir.resolve("zero.zip");
    Path plainFile = dir.resolve("plain.zip");
    train(3, r -> ZeroModels.model(kind, "mixed"), 0, STEPS, true, zeroFile);
    train(3, r -> ZeroModels.model(kind, "mixed"), 0, STEPS, false, plainFile);
    Model zeroSaved = load(kind, zeroFile);
    Model plainSaved = load(kind, plainFile);
    INDArray zs = stateOf(zeroSaved);
    INDArray ps = stateOf(plainSaved);
    assertThat(zs).as("the ZeRO checkpoint has updater state").isNotNull();
    assertThat(zs.length()).isEqualTo(ps.length());
    assertThat(zs.sumNumber().doubleValue()).as("a trained state, not zeros").isNotZero();
    assertClose(zs.data().asFloat(), ps.data().asFloat(), 1e-4, "saved updater state");
    assertClose(
        zeroSaved.params().data().asFloat(),
        plainSaved.params().data().asFloat(),
        1e-5,
        "saved params");
    // Resume each from its own file, sharding the loaded (non-zero) state again.
    List<Rank> zero = train(3, r -> load(kind, zeroFile), STEPS, 2, true, null);
    List<Rank> plain = train(3, r -> load(kind, plainFile), STEPS, 2, false, null);
    assertClose(zero.get(0).params(), plain.get(0).params(), 1e-5, "resumed");
  }

  private static Model load(String kind, Path file) {
    return kind.equals("cg")
        ? Checkpoints.loadComputationGraph(file)
        : Checkpoints.loadMultiLayerNetwork(file);
  }

  private static INDArray stateOf(Model m) {
    return m instanceof MultiLayerNetwork net
        ? net.getUpdater().getStateViewArray()
        : ((ComputationGraph) m).getUpdater().getStateViewArray();
  }

  @Test
  void accumulatedGradientsShouldTravelThroughTheShardsToo() throws Exception {
    List<Rank> zero = train(3, r -> ZeroModels.model("cg", "adam"), 0, 3, true, null, true);
    List<Rank> plain = train(3, r -> ZeroModels.model("cg", "adam"), 0, 3, false, null, true);
    for (int r = 0; r < 3; r++) {
      assertThat(zero.get(r).params()).isEqualTo(zero.get(0).params());
      assertClose(zero.get(r).params(), plain.get(r).params(), 1e-5, "rank " + r + " vs plain DDP");
    }
  }

  @Test
  void ddp4jZeroShouldTurnItOnAndBeOffByDefault() {
    assertThat(DdpOptions.defaults().zeroRedundancy()).isFalse();
    assertThat(DdpOptions.fromEnvironment(Settings.empty()).zeroRedundancy()).isFalse();
    DdpOptions on = DdpOptions.fromEnvironment(Settings.of(Map.of("DDP4J_ZERO", "1")));
    assertThat(on.zeroRedundancy()).isTrue();
    assertThat(on.toBuilder().syncBatchNorm(true).build().zeroRedundancy()).isTrue();
    assertThat(on.toString()).contains("zeroRedundancy=true");
  }

  @Test
  void aCommHookOtherThanTheDefaultShouldBeRefusedWithTheFix() throws Exception {
    try (ProcessGroup group = group(new InMemoryStore(), 0, 1)) {
      DdpOptions options = options(true).toBuilder().commHook(CommHooks.fp16Compress()).build();
      assertThatThrownBy(() -> wrap(ZeroModels.multiLayer("adam"), group, options))
          .isInstanceOf(ConfigException.class)
          .hasMessage(
              "zeroRedundancy with commHook fp16: ZeRO-1 reduce-scatters the gradients itself, so"
                  + " no comm hook applies (use the default CommHooks.allReduce(), or turn"
                  + " zeroRedundancy off)");
    }
  }

  @Test
  void anUpdaterWhoseStateCannotBeSlicedShouldBeRefusedWithTheFix() throws Exception {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            new NeuralNetConfiguration.Builder()
                .dataType(DataType.FLOAT)
                .updater(new StepCountingSgd())
                .list()
                .layer(
                    new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .nIn(4)
                        .nOut(1)
                        .activation(Activation.IDENTITY)
                        .build())
                .build());
    net.init();
    try (ProcessGroup group = group(new InMemoryStore(), 0, 1)) {
      assertThatThrownBy(() -> wrap(net, group, options(true)))
          .isInstanceOf(ConfigException.class)
          .hasMessage(
              "zeroRedundancy: the updater StepCountingSgd of layer 'layer0' keeps 7 state elements"
                  + " for 5 parameters, not a whole multiple of them, so its state cannot be sharded"
                  + " (use a DL4J updater such as Adam, Nesterovs or Sgd, or turn zeroRedundancy"
                  + " off)");
    }
  }

  @Test
  void perLayerNormClippingShouldBeRefusedWithTheFix() throws Exception {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            new NeuralNetConfiguration.Builder()
                .dataType(DataType.FLOAT)
                .updater(new Adam(0.01))
                .list()
                .layer(
                    new DenseLayer.Builder()
                        .nIn(4)
                        .nOut(4)
                        .gradientNormalization(GradientNormalization.ClipL2PerLayer)
                        .gradientNormalizationThreshold(1)
                        .build())
                .layer(
                    new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .nIn(4)
                        .nOut(1)
                        .activation(Activation.IDENTITY)
                        .build())
                .build());
    net.init();
    try (ProcessGroup group = group(new InMemoryStore(), 0, 1)) {
      assertThatThrownBy(() -> wrap(net, group, options(true)))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(
              "zeroRedundancy: layer 'layer0' uses GradientNormalization.ClipL2PerLayer")
          .hasMessageContaining(
              "(use None or ClipElementWiseAbsoluteValue, or turn zeroRedundancy off)");
    }
  }
}
