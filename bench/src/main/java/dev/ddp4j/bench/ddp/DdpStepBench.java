package dev.ddp4j.bench.ddp;

import dev.ddp4j.Ddp;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpStats;
import java.util.concurrent.Callable;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Step time of an MLP with and without DdpModel on the ranks the launcher started, in one run: the
 * same model, batch and steps, first plain {@code fit} (no communication), then through DdpModel.
 * Rank 0 prints one row: step times, the overhead, and how much of the all-reduce time backward
 * hid.
 *
 * <pre>
 * bash bench/ddp-step-bench.sh      (1, 2 and 4 ranks under the launcher; RANKS="2" for one count)
 * </pre>
 */
@Command(name = "DdpStepBench", mixinStandardHelpOptions = true)
public final class DdpStepBench implements Callable<Integer> {

  @Option(
      names = "--layers",
      defaultValue = "4",
      description = "Hidden layers. Default: ${DEFAULT-VALUE}.")
  int layers;

  @Option(
      names = "--width",
      defaultValue = "512",
      description = "Hidden width. Default: ${DEFAULT-VALUE}.")
  int width;

  @Option(
      names = "--batch",
      defaultValue = "128",
      description = "Examples per rank per step. Default: ${DEFAULT-VALUE}.")
  int batch;

  @Option(
      names = "--steps",
      defaultValue = "10",
      description = "Timed steps. Default: ${DEFAULT-VALUE}.")
  int steps;

  @Option(
      names = "--warmup",
      defaultValue = "5",
      description = "Untimed steps first. Default: ${DEFAULT-VALUE}.")
  int warmup;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Alternating plain / DdpModel rounds. Default: ${DEFAULT-VALUE}.")
  int rounds;

  public static void main(String[] args) {
    System.exit(new CommandLine(new DdpStepBench()).execute(args));
  }

  @Override
  public Integer call() {
    try (ProcessGroup pg = Ddp.init()) {
      MultiLayerNetwork net = build();
      DataSet data =
          new DataSet(
              Nd4j.rand(DataType.FLOAT, batch, width),
              Nd4j.zeros(DataType.FLOAT, batch, 10).putScalar(0, 1, 1f));
      // Plain and DdpModel steps alternate round by round, so that a noisy machine slows both
      // alike; the medians over rounds are reported.
      double[] plain = new double[rounds];
      double[] ddpTimes = new double[rounds];
      double[] comm = new double[rounds];
      double[] exposed = new double[rounds];
      int buckets = 0;
      for (int r = 0; r < rounds; r++) {
        plain[r] = timeSteps(() -> net.fit(data), pg);
        try (DdpModel<MultiLayerNetwork> ddp = DdpModel.wrap(net, pg)) {
          ddpTimes[r] = timeSteps(() -> ddp.fit(data), pg);
          DdpStats stats = ddp.stats();
          comm[r] = stats.commMsPerStep();
          exposed[r] = stats.exposedMsPerStep();
          buckets = stats.buckets();
        }
      }
      double plainMs = median(plain);
      double ddpMs = median(ddpTimes);
      double commMs = median(comm);
      double exposedMs = median(exposed);
      if (pg.rank() == 0) {
        System.out.printf(
            "%-6s %-10s %-8s %12s %12s %9s %12s %12s %9s%n",
            "ranks",
            "params",
            "buckets",
            "plain ms",
            "ddp ms",
            "overhead",
            "comm ms",
            "exposed ms",
            "hidden");
        System.out.printf(
            "%-6d %-10d %-8d %12.2f %12.2f %8.1f%% %12.2f %12.2f %8.1f%%%n",
            pg.size(),
            net.numParams(),
            buckets,
            plainMs,
            ddpMs,
            100 * (ddpMs / plainMs - 1),
            commMs,
            exposedMs,
            commMs == 0 ? 0 : 100 * (1 - exposedMs / commMs));
      }
    }
    return 0;
  }

  private static double median(double[] v) {
    double[] c = v.clone();
    java.util.Arrays.sort(c);
    return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
  }

  /**
   * Mean step time over the timed steps, in ms (the slowest rank's), with every rank starting
   * together.
   */
  private double timeSteps(Runnable step, ProcessGroup pg) {
    for (int i = 0; i < warmup; i++) {
      step.run();
    }
    pg.barrier().await();
    long t0 = System.nanoTime();
    for (int i = 0; i < steps; i++) {
      step.run();
    }
    double[] ms = {(System.nanoTime() - t0) / 1e6 / steps};
    pg.allReduce(HostBuffer.of(ms), ReduceOp.MAX).await();
    return ms[0];
  }

  private MultiLayerNetwork build() {
    NeuralNetConfiguration.ListBuilder b =
        new NeuralNetConfiguration.Builder()
            .seed(1)
            .dataType(DataType.FLOAT)
            .updater(new Sgd(1e-3))
            .list();
    for (int i = 0; i < layers; i++) {
      b.layer(new DenseLayer.Builder().nIn(width).nOut(width).activation(Activation.RELU).build());
    }
    b.layer(
        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
            .nIn(width)
            .nOut(10)
            .activation(Activation.SOFTMAX)
            .build());
    MultiLayerNetwork net = new MultiLayerNetwork(b.build());
    net.init();
    return net;
  }
}
