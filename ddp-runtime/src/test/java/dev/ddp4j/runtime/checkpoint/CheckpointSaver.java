package dev.ddp4j.runtime.checkpoint;

import dev.ddp4j.Ddp;
import dev.ddp4j.InitOptions;
import dev.ddp4j.ProcessGroup;
import java.nio.file.Path;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A one-rank job that saves a model of {@code args[1]} x {@code args[1]} weights to {@code args[0]}
 * again and again, printing {@code saved N} after each, until it is killed.
 */
public final class CheckpointSaver {

  private CheckpointSaver() {}

  public static void main(String[] args) {
    Path file = Path.of(args[0]);
    int width = Integer.parseInt(args[1]);
    try (ProcessGroup group = oneRankGroup(file.getParent())) {
      MultiLayerNetwork net = model(width);
      for (int n = 1; ; n++) {
        Checkpoints.save(net, group, file);
        System.out.println("saved " + n);
        System.out.flush();
      }
    }
  }

  static ProcessGroup oneRankGroup(Path dir) {
    return Ddp.init(
        InitOptions.builder()
            .initMethod(dir.resolve("store-" + ProcessHandle.current().pid()).toUri().toString())
            .rank(0)
            .worldSize(1)
            .backend("cpu")
            .build(dev.ddp4j.spi.Settings.empty()));
  }

  static MultiLayerNetwork model(int width) {
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(7)
            .updater(new Adam(1e-3))
            .list()
            .layer(new DenseLayer.Builder().nIn(width).nOut(width).build())
            .layer(
                new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                    .nIn(width)
                    .nOut(1)
                    .activation(Activation.IDENTITY)
                    .build())
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }
}
