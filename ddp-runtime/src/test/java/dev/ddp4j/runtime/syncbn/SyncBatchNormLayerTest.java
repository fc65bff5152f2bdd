package dev.ddp4j.runtime.syncbn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import java.util.concurrent.atomic.AtomicInteger;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * On one rank the synchronised layer must be DL4J's BatchNormalization exactly: same outputs,
 * gradients, running statistics and training trajectory, for dense and NCHW inputs; inference is
 * DL4J's own path.
 */
class SyncBatchNormLayerTest {

  static MultiLayerNetwork dense(boolean lockGammaBeta) {
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(5)
            .dataType(DataType.DOUBLE)
            .updater(new Adam(0.01))
            .list()
            .layer(new DenseLayer.Builder().nIn(4).nOut(6).activation(Activation.IDENTITY).build())
            .layer(new BatchNormalization.Builder().lockGammaBeta(lockGammaBeta).build())
            .layer(new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build())
            .layer(
                new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                    .nIn(5)
                    .nOut(2)
                    .activation(Activation.IDENTITY)
                    .build())
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  static MultiLayerNetwork cnn() {
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(5)
            .dataType(DataType.DOUBLE)
            .updater(new Adam(0.01))
            .list()
            .layer(
                new ConvolutionLayer.Builder(3, 3).nOut(3).activation(Activation.IDENTITY).build())
            .layer(new BatchNormalization.Builder().build())
            .layer(
                new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                    .nOut(2)
                    .activation(Activation.IDENTITY)
                    .build())
            .setInputType(InputType.convolutional(5, 5, 2))
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** Replaces layer 1 (the BatchNormalization) by the synchronised one over one rank. */
  static AtomicInteger wrap(MultiLayerNetwork net) {
    AtomicInteger reductions = new AtomicInteger();
    net.getUpdater();
    Layer[] layers = net.getLayers();
    layers[1] =
        SyncBatchNormLayer.wrapIfBatchNorm(layers[1], stats -> reductions.incrementAndGet());
    net.setLayers(layers);
    return reductions;
  }

  static DataSet data(long[] featureShape, long seed) {
    Nd4j.getRandom().setSeed(seed);
    INDArray x = Nd4j.rand(DataType.DOUBLE, featureShape).muli(3).addi(1);
    INDArray y = Nd4j.rand(DataType.DOUBLE, featureShape[0], 2);
    return new DataSet(x, y);
  }

  static void assertSameTraining(MultiLayerNetwork plain, MultiLayerNetwork synced, long[] shape) {
    AtomicInteger reductions = wrap(synced);
    for (int step = 0; step < 4; step++) {
      DataSet d = data(shape, 40 + step);
      plain.setInput(d.getFeatures());
      plain.setLabels(d.getLabels());
      plain.computeGradientAndScore();
      synced.setInput(d.getFeatures());
      synced.setLabels(d.getLabels());
      synced.computeGradientAndScore();
      assertClose(synced.getGradientsViewArray(), plain.getGradientsViewArray(), "gradient");
      plain.fit(d);
      synced.fit(d);
      assertClose(synced.params(), plain.params(), "parameters after step " + step);
    }
    // Forward and backward each all-reduce once per training pass (2 passes per step above).
    assertThat(reductions.get()).isEqualTo(4 * 2 * 2);
    INDArray probe = data(shape, 7).getFeatures();
    assertClose(synced.output(probe), plain.output(probe), "inference output");
    assertThat(reductions.get()).as("inference communicates nothing").isEqualTo(16);
  }

  static void assertClose(INDArray actual, INDArray expected, String what) {
    double scale = expected.norm2Number().doubleValue() + 1e-12;
    double err = actual.sub(expected).norm2Number().doubleValue() / scale;
    assertThat(err).as(what + ": relative error").isLessThan(1e-10);
  }

  @Test
  void shouldTrainExactlyLikeDl4jsBatchNormOnDenseInputs() {
    assertSameTraining(dense(false), dense(false), new long[] {10, 4});
  }

  @Test
  void shouldTrainExactlyLikeDl4jsBatchNormOnNchwInputs() {
    assertSameTraining(cnn(), cnn(), new long[] {6, 2, 5, 5});
  }

  @Test
  void shouldRefuseBatchNormWithFixedGammaAndBeta() {
    MultiLayerNetwork net = dense(true);
    assertThatThrownBy(() -> SyncBatchNormLayer.wrapIfBatchNorm(net.getLayer(1), s -> {}))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lockGammaBeta=true");
  }
}
