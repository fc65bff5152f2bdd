package dev.ddp4j.runtime.comm;

import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The comm hook tests' models and data: {@code in} inputs, two tanh layers of {@code hidden}, 3
 * softmax outputs, as a MultiLayerNetwork or a ComputationGraph; and a task they can learn: which
 * of 3 fixed directions an input is nearest to.
 */
final class HookModels {

  static final int OUT = 3;

  private HookModels() {}

  private static NeuralNetConfiguration.Builder conf() {
    return new NeuralNetConfiguration.Builder()
        .seed(7)
        .dataType(DataType.FLOAT)
        .updater(new Sgd(0.1));
  }

  static Model model(String kind, int in, int hidden) {
    DenseLayer first =
        new DenseLayer.Builder().nIn(in).nOut(hidden).activation(Activation.TANH).build();
    DenseLayer second =
        new DenseLayer.Builder().nIn(hidden).nOut(hidden).activation(Activation.TANH).build();
    OutputLayer out =
        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
            .nIn(hidden)
            .nOut(OUT)
            .activation(Activation.SOFTMAX)
            .build();
    if (kind.equals("cg")) {
      ComputationGraph g =
          new ComputationGraph(
              conf()
                  .graphBuilder()
                  .addInputs("in")
                  .addLayer("first", first, "in")
                  .addLayer("second", second, "first")
                  .addLayer("out", out, "second")
                  .setOutputs("out")
                  .build());
      g.init();
      return g;
    }
    MultiLayerNetwork net = new MultiLayerNetwork(conf().list(first, second, out).build());
    net.init();
    return net;
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  static DdpModel wrap(Model m, dev.ddp4j.ProcessGroup group, DdpOptions options) {
    return m instanceof MultiLayerNetwork net
        ? DdpModel.wrap(net, group, options)
        : DdpModel.wrap((ComputationGraph) m, group, options);
  }

  /**
   * {@code n} examples of the nearest-direction task, the same for the same {@code seed}: inputs
   * Gaussian, the label the closest of 3 directions fixed by {@code in}. Drawn with
   * java.util.Random, not ND4J's generator, which the ranks' threads share.
   */
  static DataSet data(int in, long seed, int n) {
    INDArray directions = gaussian(12345, in, OUT);
    INDArray x = gaussian(seed, n, in);
    INDArray best = x.mmul(directions).argMax(1);
    INDArray labels = Nd4j.zeros(DataType.FLOAT, n, OUT);
    for (int i = 0; i < n; i++) {
      labels.putScalar(i, best.getInt(i), 1f);
    }
    return new DataSet(x, labels);
  }

  /** A {@code rows x cols} matrix of standard normal values drawn from {@code seed}. */
  static INDArray gaussian(long seed, int rows, int cols) {
    java.util.Random random = new java.util.Random(seed);
    float[] v = new float[rows * cols];
    for (int k = 0; k < v.length; k++) {
      v[k] = (float) random.nextGaussian();
    }
    return Nd4j.createFromArray(v).reshape(rows, cols);
  }
}
