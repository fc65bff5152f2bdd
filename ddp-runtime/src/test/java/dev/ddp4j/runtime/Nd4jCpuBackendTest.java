package dev.ddp4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The facts DdpModel is built on, checked against the ND4J CPU backend this build ships: the
 * natives load, parameters and gradients are each one flat buffer, and a network learns a learnable
 * problem.
 */
class Nd4jCpuBackendTest {

  @Test
  void shouldKeepParamsAndGradientsInOneFlatBufferAndLearn() {
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(7)
            .dataType(DataType.FLOAT)
            .updater(new Sgd(0.1))
            .list()
            .layer(new DenseLayer.Builder().nIn(2).nOut(8).activation(Activation.TANH).build())
            .layer(
                new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                    .nIn(8)
                    .nOut(1)
                    .activation(Activation.IDENTITY)
                    .build())
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();

    // y = x0 - 2 x1: learnable, so the loss must fall.
    INDArray x = Nd4j.rand(DataType.FLOAT, 64, 2).subi(0.5);
    INDArray y = x.getColumn(0).sub(x.getColumn(1).mul(2)).reshape(64, 1);
    DataSet data = new DataSet(x, y);
    net.setInput(x);
    net.setLabels(y);
    net.computeGradientAndScore();
    double before = net.score();

    INDArray flat = net.params();
    assertThat(flat.length()).isEqualTo(2 * 8 + 8 + 8 * 1 + 1);
    assertThat(net.getGradientsViewArray().length()).isEqualTo(flat.length());
    assertThat(net.getLayer(0).getParam("W").data().address())
        .as("layer 0's weights are a view into the flat parameter buffer")
        .isEqualTo(flat.data().address());

    for (int i = 0; i < 200; i++) {
      net.fit(data);
    }
    assertThat(net.score()).isLessThan(before / 10);
  }
}
