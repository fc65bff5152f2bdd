package dev.ddp4j.examples;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.transferlearning.FineTuneConfiguration;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.AdaDelta;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.RmsProp;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The models and data the DDP parity tests train, built identically by the test and by every
 * worker.
 */
final class ParityModels {

  static final int IN = 8;
  static final int HIDDEN = 24;
  static final int OUT = 3;

  private ParityModels() {}

  /** An updater by name; each one's state (moments, accumulators) is part of what must match. */
  static IUpdater updater(String name) {
    return switch (name) {
      case "adam" -> new Adam(0.01);
      case "nesterov" -> new Nesterovs(0.05, 0.9);
      case "adadelta" -> new AdaDelta();
      case "rmsprop" -> new RmsProp(0.01);
      case "sgd" -> new Sgd(0.1);
      default ->
          throw new IllegalArgumentException(
              "updater " + name + " (expected: sgd, adam, nesterov, adadelta, rmsprop)");
    };
  }

  /**
   * Four layers (three hidden, one output), so several buckets and backward hooks are exercised.
   */
  static MultiLayerNetwork multiLayer(String updater, long seed) {
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(updater(updater))
            .list()
            .layer(
                new DenseLayer.Builder().nIn(IN).nOut(HIDDEN).activation(Activation.TANH).build())
            .layer(
                new DenseLayer.Builder()
                    .nIn(HIDDEN)
                    .nOut(HIDDEN)
                    .activation(Activation.TANH)
                    .build())
            .layer(
                new DenseLayer.Builder()
                    .nIn(HIDDEN)
                    .nOut(HIDDEN)
                    .activation(Activation.TANH)
                    .build())
            .layer(
                new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                    .nIn(HIDDEN)
                    .nOut(OUT)
                    .activation(Activation.SOFTMAX)
                    .build())
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** {@link #multiLayer}'s network with dropout (keep probability 0.8) on every layer's input. */
  static MultiLayerNetwork withDropout(long seed) {
    return new TransferLearning.Builder(multiLayer("sgd", seed))
        .fineTuneConfiguration(new FineTuneConfiguration.Builder().seed(seed).dropOut(0.8).build())
        .build();
  }

  static ComputationGraph graph(String updater, long seed) {
    ComputationGraphConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(updater(updater))
            .graphBuilder()
            .addInputs("in")
            .addLayer(
                "d0",
                new DenseLayer.Builder().nIn(IN).nOut(HIDDEN).activation(Activation.TANH).build(),
                "in")
            .addLayer(
                "d1",
                new DenseLayer.Builder()
                    .nIn(HIDDEN)
                    .nOut(HIDDEN)
                    .activation(Activation.TANH)
                    .build(),
                "d0")
            .addLayer(
                "d2",
                new DenseLayer.Builder()
                    .nIn(HIDDEN)
                    .nOut(HIDDEN)
                    .activation(Activation.TANH)
                    .build(),
                "d1")
            .addLayer(
                "out",
                new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                    .nIn(HIDDEN)
                    .nOut(OUT)
                    .activation(Activation.SOFTMAX)
                    .build(),
                "d2")
            .setOutputs("out")
            .build();
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    return g;
  }

  /**
   * Step {@code step}'s global batch of {@code examples}; rank r of n trains on rows [r*B,
   * (r+1)*B).
   */
  static DataSet globalBatch(long seed, int step, int examples) {
    Nd4j.getRandom().setSeed(seed * 1000 + step);
    INDArray x = Nd4j.rand(DataType.FLOAT, examples, IN).subi(0.5);
    INDArray labels = Nd4j.zeros(DataType.FLOAT, examples, OUT);
    for (int i = 0; i < examples; i++) {
      labels.putScalar(
          i,
          (int) Math.floorMod((long) (x.getDouble(i, 0) * 10 + x.getDouble(i, 1) * 7), (long) OUT),
          1f);
    }
    return new DataSet(x, labels);
  }

  /** Rows {@code [from, from + count)} of {@code batch}. */
  static DataSet rows(DataSet batch, int from, int count) {
    return new DataSet(
        batch
            .getFeatures()
            .get(org.nd4j.linalg.indexing.NDArrayIndex.interval(from, from + count))
            .dup(),
        batch
            .getLabels()
            .get(org.nd4j.linalg.indexing.NDArrayIndex.interval(from, from + count))
            .dup());
  }
}
