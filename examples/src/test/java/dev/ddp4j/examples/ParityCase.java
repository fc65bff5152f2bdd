package dev.ddp4j.examples;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;

/**
 * The models of the noise-floor parity suite ({@link NoiseFloorParity}), each with its data, built
 * identically by the tests and by {@link ParityCaseWorker} in every rank: by name, so a worker
 * started by the launcher is told which ones to train.
 */
enum ParityCase {
  RESNET(ResNetModels::model, ResNetModels::globalBatch),
  LSTM_TBPTT(RecurrentModels::lstm, RecurrentModels::globalBatch),
  LSTM_TBPTT_GRAPH(RecurrentModels::lstmGraph, RecurrentModels::globalBatch),
  FROZEN_FEATURE_EXTRACTOR(FrozenModels::featureExtractor, ParityCase::denseBatch),
  FROZEN_WITH_BACKPROP(FrozenModels::frozenMiddle, ParityCase::denseBatch),
  ADAM(seed -> ParityModels.multiLayer("adam", seed), ParityCase::denseBatch),
  NESTEROV(seed -> ParityModels.multiLayer("nesterov", seed), ParityCase::denseBatch),
  ADADELTA(seed -> ParityModels.multiLayer("adadelta", seed), ParityCase::denseBatch),
  RMSPROP(seed -> ParityModels.graph("rmsprop", seed), ParityCase::denseBatch),
  DROPOUT(ParityModels::withDropout, ParityCase::denseBatch),
  ADAM_GRAPH(seed -> ParityModels.graph("adam", seed), ParityCase::denseBatch),
  NESTEROV_GRAPH(seed -> ParityModels.graph("nesterov", seed), ParityCase::denseBatch),
  /**
   * BatchNorm without sync, on a batch of {@value #REPEATED_ROWS} rows repeated: each rank's batch
   * statistics are then the whole batch's, so it matches one process and its running mean and
   * variance (averaged over the ranks that trained) are held to the floor too.
   */
  BATCHNORM_REPEATED(seed -> BatchNormModels.model("dense", seed), ParityCase::repeatedBatch);

  /** How many distinct rows a {@link #BATCHNORM_REPEATED} batch has; ranks must get as many. */
  static final int REPEATED_ROWS = 4;

  private final LongFunction<Model> model;
  private final BiFunction<Integer, Integer, DataSet> batch;

  ParityCase(LongFunction<Model> model, BiFunction<Integer, Integer, DataSet> batch) {
    this.model = model;
    this.batch = batch;
  }

  /** A fresh, initialised model; the same {@code seed} gives the same weights. */
  Model model(long seed) {
    return model.apply(seed);
  }

  /** Step {@code step}'s global batch of {@code examples}; rank r of n fits rows [r*B, (r+1)*B). */
  DataSet globalBatch(int step, int examples) {
    return batch.apply(step, examples);
  }

  private static DataSet denseBatch(int step, int examples) {
    return ParityModels.globalBatch(99, step, examples);
  }

  private static DataSet repeatedBatch(int step, int examples) {
    DataSet rows = BatchNormModels.globalBatch("dense", step, REPEATED_ROWS);
    int copies = examples / REPEATED_ROWS;
    return DataSet.merge(java.util.Collections.nCopies(copies, rows));
  }

  static void fit(Model m, DataSet d) {
    if (m instanceof MultiLayerNetwork) {
      ((MultiLayerNetwork) m).fit(d);
    } else {
      ((ComputationGraph) m).fit(d);
    }
  }

  static DdpModel wrap(Model m, ProcessGroup pg, DdpOptions options) {
    return m instanceof MultiLayerNetwork
        ? DdpModel.wrap((MultiLayerNetwork) m, pg, options)
        : DdpModel.wrap((ComputationGraph) m, pg, options);
  }
}
