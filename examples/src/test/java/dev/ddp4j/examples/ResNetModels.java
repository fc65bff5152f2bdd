package dev.ddp4j.examples;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A tiny ResNet-style ComputationGraph (NCHW convolutions, residual adds, global average pooling)
 * with {@link #BATCH_NORMS} BatchNormalization layers, and its data: deep enough that batch norm
 * statistics which lose digits compound layer by layer (issue 18), small enough for a 2-core CI.
 */
final class ResNetModels {

  static final int BLOCKS = 10;
  static final int BATCH_NORMS = 1 + 2 * BLOCKS;
  static final int CHANNELS = 4;
  static final int SIDE = 6;
  static final int OUT = 3;

  private ResNetModels() {}

  /**
   * stem (conv, BN, relu), then BLOCKS x (conv, BN, relu, conv, BN, + skip, relu), pool, softmax.
   */
  static ComputationGraph model(long seed) {
    ComputationGraphConfiguration.GraphBuilder g =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(new Sgd(0.05))
            .convolutionMode(ConvolutionMode.Same)
            .graphBuilder()
            .addInputs("in")
            .setInputTypes(InputType.convolutional(SIDE, SIDE, 2));
    g.addLayer("stem", conv(), "in")
        .addLayer("stem_bn", new BatchNormalization.Builder().build(), "stem")
        .addLayer("stem_relu", relu(), "stem_bn");
    String previous = "stem_relu";
    for (int b = 0; b < BLOCKS; b++) {
      String p = "b" + b + "_";
      g.addLayer(p + "c1", conv(), previous)
          .addLayer(p + "bn1", new BatchNormalization.Builder().build(), p + "c1")
          .addLayer(p + "r1", relu(), p + "bn1")
          .addLayer(p + "c2", conv(), p + "r1")
          .addLayer(p + "bn2", new BatchNormalization.Builder().build(), p + "c2")
          .addVertex(
              p + "add", new ElementWiseVertex(ElementWiseVertex.Op.Add), p + "bn2", previous)
          .addLayer(p + "r2", relu(), p + "add");
      previous = p + "r2";
    }
    g.addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), previous)
        .addLayer(
            "out",
            new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                .nOut(OUT)
                .activation(Activation.SOFTMAX)
                .build(),
            "pool")
        .setOutputs("out");
    ComputationGraph net = new ComputationGraph(g.build());
    net.init();
    return net;
  }

  private static ConvolutionLayer conv() {
    return new ConvolutionLayer.Builder(3, 3)
        .nOut(CHANNELS)
        .activation(Activation.IDENTITY)
        .build();
  }

  private static ActivationLayer relu() {
    return new ActivationLayer.Builder().activation(Activation.RELU).build();
  }

  /**
   * Step {@code step}'s global batch. Pixels sit far from zero (mean ~50, spread ~0.3), the regime
   * where E[x^2] - E[x]^2 in float32 cancels most of the variance's digits.
   */
  static DataSet globalBatch(int step, int examples) {
    Nd4j.getRandom().setSeed(7000 + step);
    INDArray x = Nd4j.rand(DataType.FLOAT, examples, 2, SIDE, SIDE).addi(50);
    INDArray labels = Nd4j.zeros(DataType.FLOAT, examples, OUT);
    for (int i = 0; i < examples; i++) {
      labels.putScalar(i, (int) Math.floorMod(Math.round(x.getDouble(i, 0, 2, 2) * 5), 3L), 1f);
    }
    return new DataSet(x, labels);
  }
}
