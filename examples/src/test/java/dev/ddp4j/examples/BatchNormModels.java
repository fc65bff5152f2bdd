package dev.ddp4j.examples;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Models with BatchNormalization (layer 1) on dense and NCHW activations, and their data, built
 * identically by the batch norm tests and their workers.
 */
final class BatchNormModels {

  static final int CHANNELS = 2;
  static final int SIDE = 5;

  private BatchNormModels() {}

  static MultiLayerNetwork model(String kind, long seed) {
    NeuralNetConfiguration.ListBuilder list =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(new Sgd(0.1))
            .list();
    MultiLayerConfiguration conf;
    if (kind.equals("cnn")) {
      conf =
          list.layer(
                  new ConvolutionLayer.Builder(3, 3)
                      .nOut(4)
                      .activation(Activation.IDENTITY)
                      .build())
              .layer(new BatchNormalization.Builder().build())
              .layer(
                  new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                      .nOut(ParityModels.OUT)
                      .activation(Activation.SOFTMAX)
                      .build())
              .setInputType(InputType.convolutional(SIDE, SIDE, CHANNELS))
              .build();
    } else {
      conf =
          list.layer(
                  new DenseLayer.Builder()
                      .nIn(ParityModels.IN)
                      .nOut(ParityModels.HIDDEN)
                      .activation(Activation.IDENTITY)
                      .build())
              .layer(new BatchNormalization.Builder().build())
              .layer(
                  new DenseLayer.Builder()
                      .nIn(ParityModels.HIDDEN)
                      .nOut(ParityModels.HIDDEN)
                      .activation(Activation.TANH)
                      .build())
              .layer(
                  new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                      .nIn(ParityModels.HIDDEN)
                      .nOut(ParityModels.OUT)
                      .activation(Activation.SOFTMAX)
                      .build())
              .build();
    }
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /**
   * Step {@code step}'s global batch; rank r of n trains on rows [r*B, (r+1)*B). Features have a
   * non-zero mean that differs between the halves, so per-rank batch statistics differ.
   */
  static DataSet globalBatch(String kind, int step, int examples) {
    if (!kind.equals("cnn")) {
      DataSet d = ParityModels.globalBatch(77, step, examples);
      INDArray x = d.getFeatures();
      for (int i = 0; i < examples; i++) {
        x.getRow(i).addi(i < examples / 2 ? 1.0 : -0.5);
      }
      return d;
    }
    Nd4j.getRandom().setSeed(5000 + step);
    INDArray x = Nd4j.rand(DataType.FLOAT, examples, CHANNELS, SIDE, SIDE).muli(2);
    INDArray labels = Nd4j.zeros(DataType.FLOAT, examples, ParityModels.OUT);
    for (int i = 0; i < examples; i++) {
      if (i < examples / 2) {
        x.get(org.nd4j.linalg.indexing.NDArrayIndex.point(i)).addi(1.0);
      }
      labels.putScalar(i, (int) Math.floorMod(Math.round(x.getDouble(i, 0, 2, 2) * 5), 3L), 1f);
    }
    return new DataSet(x, labels);
  }
}
