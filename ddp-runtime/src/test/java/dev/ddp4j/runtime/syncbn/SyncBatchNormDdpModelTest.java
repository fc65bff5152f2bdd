package dev.ddp4j.runtime.syncbn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.Ddp;
import dev.ddp4j.InitOptions;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * DdpModel with synchronised batch norm on a ComputationGraph, one rank: the graph's BatchNorm
 * vertex is swapped for the synchronised layer while the DdpModel is open (and back after), and
 * training equals plain DL4J training.
 */
class SyncBatchNormDdpModelTest {

  static ComputationGraph graph() {
    ComputationGraphConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(3)
            .dataType(DataType.DOUBLE)
            .updater(new Sgd(0.1))
            .graphBuilder()
            .addInputs("in")
            .addLayer("d0", new DenseLayer.Builder().nIn(4).nOut(6).build(), "in")
            .addLayer("bn", new BatchNormalization.Builder().nIn(6).nOut(6).build(), "d0")
            .addLayer(
                "out",
                new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                    .nIn(6)
                    .nOut(2)
                    .activation(Activation.IDENTITY)
                    .build(),
                "bn")
            .setOutputs("out")
            .build();
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    return g;
  }

  @Test
  void shouldSwapTheGraphsBatchNormWhileOpenAndTrainLikeDl4j(@TempDir Path dir) {
    ComputationGraph plain = graph();
    ComputationGraph synced = graph();
    try (ProcessGroup group =
            Ddp.init(
                InitOptions.builder()
                    .initMethod(dir.resolve("store").toUri().toString())
                    .rank(0)
                    .worldSize(1)
                    .backend("cpu")
                    .build(dev.ddp4j.spi.Settings.empty()));
        DdpModel ddp =
            DdpModel.wrap(synced, group, DdpOptions.builder().syncBatchNorm(true).build())) {
      assertThat(java.util.Arrays.stream(synced.getLayers()).map(l -> l.getClass().getSimpleName()))
          .as("the BatchNorm layer sits inside its backward hook, synchronised")
          .contains("BackwardHookLayer");
      assertThat(
              ((org.deeplearning4j.nn.layers.wrapper.BaseWrapperLayer) synced.getLayer("bn"))
                  .getUnderlying())
          .isInstanceOf(SyncBatchNormLayer.class);
      for (int step = 0; step < 3; step++) {
        DataSet d = SyncBatchNormLayerTest.data(new long[] {8, 4}, 70 + step);
        plain.fit(d);
        ddp.fit(d);
        SyncBatchNormLayerTest.assertClose(
            synced.params(), plain.params(), "parameters after step " + step);
      }
    }
    assertThat(synced.getLayer("bn"))
        .isInstanceOf(org.deeplearning4j.nn.layers.normalization.BatchNormalization.class);
  }
}
