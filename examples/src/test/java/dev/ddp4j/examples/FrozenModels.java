package dev.ddp4j.examples;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.layers.FrozenLayer;
import org.deeplearning4j.nn.layers.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.transferlearning.FineTuneConfiguration;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Transfer learning, both ways DL4J freezes layers: {@link FrozenLayer} (a feature extractor made
 * by TransferLearning: no backward below it) and {@link FrozenLayerWithBackprop} (frozen, but the
 * error still flows through it to trainable layers below).
 */
final class FrozenModels {

  private FrozenModels() {}

  /** {@link ParityModels#multiLayer}'s network with its first two layers frozen, fine-tuned. */
  static MultiLayerNetwork featureExtractor(long seed) {
    return new TransferLearning.Builder(ParityModels.multiLayer("sgd", seed))
        .fineTuneConfiguration(
            new FineTuneConfiguration.Builder()
                .seed(seed)
                .updater(new Nesterovs(0.05, 0.9))
                .build())
        .setFeatureExtractor(1)
        .build();
  }

  /** A graph d0 -> frozen d1 -> d2 -> out: d0 learns through the frozen layer above it. */
  static ComputationGraph frozenMiddle(long seed) {
    ComputationGraphConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(new Adam(0.01))
            .graphBuilder()
            .addInputs("in")
            .addLayer("d0", dense(ParityModels.IN), "in")
            .addLayer(
                "d1",
                new org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop(
                    dense(ParityModels.HIDDEN)),
                "d0")
            .addLayer("d2", dense(ParityModels.HIDDEN), "d1")
            .addLayer(
                "out",
                new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                    .nIn(ParityModels.HIDDEN)
                    .nOut(ParityModels.OUT)
                    .activation(Activation.SOFTMAX)
                    .build(),
                "d2")
            .setOutputs("out")
            .build();
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    return g;
  }

  private static DenseLayer dense(int in) {
    return new DenseLayer.Builder()
        .nIn(in)
        .nOut(ParityModels.HIDDEN)
        .activation(Activation.TANH)
        .build();
  }

  /** Positions in the flat parameter vector of every parameter of a frozen layer of {@code m}. */
  static int[] frozenParameterIndices(Model m) {
    m.setParams(Nd4j.arange(m.numParams()).castTo(DataType.FLOAT).reshape(1, -1));
    Layer[] layers =
        m instanceof MultiLayerNetwork
            ? ((MultiLayerNetwork) m).getLayers()
            : ((ComputationGraph) m).getLayers();
    List<Integer> out = new ArrayList<>();
    for (Layer l : layers) {
      if (l instanceof FrozenLayer || l instanceof FrozenLayerWithBackprop) {
        for (INDArray p : l.paramTable().values()) {
          for (float position : p.dup().data().asFloat()) {
            out.add((int) position);
          }
        }
      }
    }
    return out.stream().mapToInt(Integer::intValue).sorted().toArray();
  }
}
