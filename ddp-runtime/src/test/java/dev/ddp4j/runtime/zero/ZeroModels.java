package dev.ddp4j.runtime.zero;

import java.util.Random;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The ZeRO tests' models: 8 inputs, two hidden layers of 13, 3 outputs (117 + 182 + 182 + 42 = 523
 * parameters), so buckets of 42 and 481 elements leave tails on 2 and 3 ranks and shard boundaries
 * fall inside layers. "mixed": Adam overall, Nesterovs with L2 on the second layer, element-wise
 * clipping on the first, plain SGD for the output layer's bias.
 */
final class ZeroModels {

  static final int IN = 8;
  static final int HIDDEN = 13;
  static final int OUT = 3;

  private ZeroModels() {}

  static Model model(String kind, String updater) {
    return kind.equals("cg") ? graph(updater) : multiLayer(updater);
  }

  private static IUpdater base(String updater) {
    return switch (updater) {
      case "adam", "mixed" -> new Adam(0.01);
      case "nesterovs" -> new Nesterovs(0.05, 0.9);
      case "sgd" -> new Sgd(0.1);
      default ->
          throw new IllegalArgumentException(updater + " (expected: adam, nesterovs, sgd, mixed)");
    };
  }

  private static DenseLayer first(String updater) {
    DenseLayer.Builder b =
        new DenseLayer.Builder().nIn(IN).nOut(HIDDEN).activation(Activation.TANH);
    if (updater.equals("mixed")) {
      b.gradientNormalization(GradientNormalization.ClipElementWiseAbsoluteValue)
          .gradientNormalizationThreshold(0.05);
    }
    return b.build();
  }

  private static DenseLayer second(String updater) {
    DenseLayer.Builder b =
        new DenseLayer.Builder().nIn(HIDDEN).nOut(HIDDEN).activation(Activation.TANH);
    if (updater.equals("mixed")) {
      b.updater(new Nesterovs(0.05, 0.9)).l2(1e-2);
    }
    return b.build();
  }

  private static OutputLayer output(String updater) {
    OutputLayer.Builder b =
        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
            .nIn(HIDDEN)
            .nOut(OUT)
            .activation(Activation.SOFTMAX);
    if (updater.equals("mixed")) {
      b.biasUpdater(new Sgd(0.1));
    }
    return b.build();
  }

  private static NeuralNetConfiguration.Builder conf(String updater) {
    return new NeuralNetConfiguration.Builder()
        .seed(7)
        .dataType(DataType.FLOAT)
        .updater(base(updater));
  }

  static MultiLayerNetwork multiLayer(String updater) {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            conf(updater)
                .list()
                .layer(first(updater))
                .layer(second(updater))
                .layer(
                    new DenseLayer.Builder()
                        .nIn(HIDDEN)
                        .nOut(HIDDEN)
                        .activation(Activation.TANH)
                        .build())
                .layer(output(updater))
                .build());
    net.init();
    return net;
  }

  static ComputationGraph graph(String updater) {
    ComputationGraph g =
        new ComputationGraph(
            conf(updater)
                .graphBuilder()
                .addInputs("in")
                .addLayer("d0", first(updater), "in")
                .addLayer("d1", second(updater), "d0")
                .addLayer(
                    "d2",
                    new DenseLayer.Builder()
                        .nIn(HIDDEN)
                        .nOut(HIDDEN)
                        .activation(Activation.TANH)
                        .build(),
                    "d1")
                .addLayer("out", output(updater), "d2")
                .setOutputs("out")
                .build());
    g.init();
    return g;
  }

  /** Rank {@code rank}'s batch of step {@code step} (java.util.Random: ND4J's is global). */
  static DataSet data(int rank, int step, int examples) {
    Random random = new Random(1000L * rank + step);
    float[] x = new float[examples * IN];
    float[] y = new float[examples * OUT];
    for (int i = 0; i < x.length; i++) {
      x[i] = random.nextFloat() - 0.5f;
    }
    for (int i = 0; i < examples; i++) {
      y[i * OUT + random.nextInt(OUT)] = 1f;
    }
    return new DataSet(
        Nd4j.create(x, new long[] {examples, IN}), Nd4j.create(y, new long[] {examples, OUT}));
  }
}
