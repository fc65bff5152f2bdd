package dev.ddp4j.runtime.join;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.testing.InMemoryStore;
import java.time.Duration;
import java.util.Map;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * What join cannot replay on a rank that ran out of data is refused when the model is wrapped, in
 * one line naming the option and the fix, before any collective.
 */
class JoinRefusalsTest {

  private static ProcessGroup oneRank() {
    WorkerEnvironment w = new WorkerEnvironment(0, 1, 0, 1, 0, 0, InitMethod.tcp("127.0.0.1", 1));
    return TestGroups.create(w, new InMemoryStore(), Duration.ofSeconds(30), Map.of());
  }

  @Test
  void joinWithSyncBatchNormShouldBeRefusedAtWrap() {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            new NeuralNetConfiguration.Builder()
                .list()
                .layer(new DenseLayer.Builder().nIn(3).nOut(4).build())
                .layer(
                    new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .nIn(4)
                        .nOut(2)
                        .activation(Activation.IDENTITY)
                        .build())
                .build());
    net.init();
    DdpOptions options = DdpOptions.builder().join(true).syncBatchNorm(true).build();
    try (ProcessGroup g = oneRank()) {
      assertThatThrownBy(() -> DdpModel.wrap(net, g, options))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("join with syncBatchNorm: a rank that ran out of data cannot")
          .hasMessageContaining("turn one of them off")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void joinUnderTruncatedBpttShouldBeRefusedAtWrap() {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            new NeuralNetConfiguration.Builder()
                .list()
                .layer(new LSTM.Builder().nIn(3).nOut(4).build())
                .layer(
                    new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .nIn(4)
                        .nOut(2)
                        .activation(Activation.IDENTITY)
                        .build())
                .backpropType(BackpropType.TruncatedBPTT)
                .tBPTTLength(5)
                .build());
    net.init();
    try (ProcessGroup g = oneRank()) {
      assertThatThrownBy(() -> DdpModel.wrap(net, g, DdpOptions.builder().join(true).build()))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("join on a model trained with truncated BPTT")
          .hasMessageContaining("BackpropType.Standard")
          .hasMessageNotContaining("\n");
    }
  }
}
