package dev.ddp4j.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.weightnoise.DropConnect;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Which layers ParityLimits names, on real DL4J networks. */
class ParityLimitsTest {

  private static MultiLayerNetwork net(DenseLayer.Builder hidden, boolean batchNorm) {
    NeuralNetConfiguration.ListBuilder list =
        new NeuralNetConfiguration.Builder().seed(1).list().layer(hidden.nIn(4).nOut(5).build());
    if (batchNorm) {
      list.layer(new BatchNormalization.Builder().nOut(5).build());
    }
    list.layer(
        new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
            .nIn(5)
            .nOut(2)
            .activation(Activation.IDENTITY)
            .build());
    MultiLayerNetwork n = new MultiLayerNetwork(list.build());
    n.init();
    return n;
  }

  private static List<String> limits(MultiLayerNetwork n, boolean syncBatchNorm) {
    return ParityLimits.of(new MultiLayerAdapter(n).layers(), syncBatchNorm);
  }

  @Test
  void aPlainNetworkShouldHaveNoLimits() {
    assertThat(limits(net(new DenseLayer.Builder(), false), false)).isEmpty();
  }

  @Test
  void dropoutAndWeightNoiseShouldEachBeNamedOnceWithTheirLayerCount() {
    assertThat(limits(net(new DenseLayer.Builder().dropOut(0.5), false), false))
        .containsExactly(
            "1 layer(s) with dropout: ranks draw different masks; results match one process in"
                + " expectation, not bitwise");
    assertThat(limits(net(new DenseLayer.Builder().weightNoise(new DropConnect(0.5)), false), true))
        .singleElement()
        .asString()
        .startsWith("1 layer(s) with weight noise");
  }

  @Test
  void batchNormShouldBeNamedOnlyWithoutSync() {
    assertThat(limits(net(new DenseLayer.Builder(), true), false))
        .singleElement()
        .asString()
        .contains("1 BatchNormalization layer(s) normalise with each rank's own batch statistics")
        .contains("DDP4J_SYNC_BATCHNORM=1");
    assertThat(limits(net(new DenseLayer.Builder(), true), true)).isEmpty();
  }
}
