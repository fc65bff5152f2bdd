package dev.ddp4j.examples;

import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * An LSTM trained with truncated BPTT: each fit of a {@link #TIME_STEPS}-step sequence runs {@link
 * #SEGMENTS} forward/backward/update segments, each one a synchronised step of its own.
 */
final class RecurrentModels {

  static final int IN = 3;
  static final int HIDDEN = 8;
  static final int OUT = 3;
  static final int SEGMENT_LENGTH = 4;
  static final int SEGMENTS = 3;
  static final int TIME_STEPS = SEGMENT_LENGTH * SEGMENTS;

  private RecurrentModels() {}

  static MultiLayerNetwork lstm(long seed) {
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(new Adam(0.01))
            .list()
            .layer(new LSTM.Builder().nIn(IN).nOut(HIDDEN).activation(Activation.TANH).build())
            .layer(
                new RnnOutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                    .nIn(HIDDEN)
                    .nOut(OUT)
                    .activation(Activation.SOFTMAX)
                    .build())
            .backpropType(BackpropType.TruncatedBPTT)
            .tBPTTForwardLength(SEGMENT_LENGTH)
            .tBPTTBackwardLength(SEGMENT_LENGTH)
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** The same LSTM as a ComputationGraph: DdpModel's graph path under truncated BPTT. */
  static ComputationGraph lstmGraph(long seed) {
    ComputationGraphConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .updater(new Adam(0.01))
            .graphBuilder()
            .addInputs("in")
            .addLayer(
                "lstm",
                new LSTM.Builder().nIn(IN).nOut(HIDDEN).activation(Activation.TANH).build(),
                "in")
            .addLayer(
                "out",
                new RnnOutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                    .nIn(HIDDEN)
                    .nOut(OUT)
                    .activation(Activation.SOFTMAX)
                    .build(),
                "lstm")
            .setOutputs("out")
            .setInputTypes(InputType.recurrent(IN, TIME_STEPS))
            .backpropType(BackpropType.TruncatedBPTT)
            .tBPTTForwardLength(SEGMENT_LENGTH)
            .tBPTTBackwardLength(SEGMENT_LENGTH)
            .build();
    ComputationGraph graph = new ComputationGraph(conf);
    graph.init();
    return graph;
  }

  /** Step {@code step}'s sequences [examples, IN, TIME_STEPS]; the label at t follows input t. */
  static DataSet globalBatch(int step, int examples) {
    Nd4j.getRandom().setSeed(3000 + step);
    INDArray x = Nd4j.rand(DataType.FLOAT, examples, IN, TIME_STEPS).subi(0.5);
    INDArray labels = Nd4j.zeros(DataType.FLOAT, examples, OUT, TIME_STEPS);
    for (int i = 0; i < examples; i++) {
      for (int t = 0; t < TIME_STEPS; t++) {
        double v = x.getDouble(i, 0, t) * 10 + x.getDouble(i, 1, Math.max(0, t - 1)) * 7;
        labels.putScalar(new long[] {i, (int) Math.floorMod((long) v, (long) OUT), t}, 1f);
      }
    }
    return new DataSet(x, labels);
  }
}
