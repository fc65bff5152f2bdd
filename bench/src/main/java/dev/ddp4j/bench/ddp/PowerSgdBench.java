package dev.ddp4j.bench.ddp;

import dev.ddp4j.Ddp;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.CommHooks;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLongArray;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * All-reduce against PowerSGD rank 1 and 4 on the ranks the launcher started: the same MLP, the
 * same batches, the same steps, one hook after the other. Rank 0 prints one markdown row per hook:
 * bytes this rank handed to all-reduces per step once compression runs (what the hook sends, before
 * the ring's 2(N-1)/N), the whole run's bytes, step time, and held-out accuracy.
 *
 * <pre>
 * bash bench/powersgd.sh      (2 ranks under the launcher)
 * </pre>
 */
@Command(name = "PowerSgdBench", mixinStandardHelpOptions = true)
public final class PowerSgdBench implements Callable<Integer> {

  @Option(names = "--in", defaultValue = "64", description = "Inputs. Default: ${DEFAULT-VALUE}.")
  int in;

  @Option(
      names = "--width",
      defaultValue = "256",
      description = "Width of the two hidden layers. Default: ${DEFAULT-VALUE}.")
  int width;

  @Option(
      names = "--classes",
      defaultValue = "10",
      description = "Classes. Default: ${DEFAULT-VALUE}.")
  int classes;

  @Option(
      names = "--batch",
      defaultValue = "32",
      description = "Examples per rank per step. Default: ${DEFAULT-VALUE}.")
  int batch;

  @Option(
      names = "--batches",
      defaultValue = "100",
      description = "Batches per rank per epoch. Default: ${DEFAULT-VALUE}.")
  int batches;

  @Option(
      names = "--epochs",
      defaultValue = "5",
      description = "Epochs. Default: ${DEFAULT-VALUE}.")
  int epochs;

  @Option(
      names = "--start-step",
      defaultValue = "50",
      description = "PowerSGD's first compressed step. Default: ${DEFAULT-VALUE}.")
  long startStep;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PowerSgdBench()).execute(args));
  }

  @Override
  public Integer call() {
    try (ProcessGroup pg = Ddp.init()) {
      DataSet test = data(999, 2000);
      if (pg.rank() == 0) {
        System.out.printf(
            "| hook | bytes/step (compressed steps) | vs allreduce | bytes/step (whole run) | ms/step"
                + " | held-out accuracy |%n|---|---|---|---|---|---|%n");
      }
      long reference = 0;
      for (int r : new int[] {0, 1, 4}) {
        CommHook hook = r == 0 ? CommHooks.allReduce() : CommHooks.powerSgd(r, startStep);
        long steps = (long) batches * epochs;
        AtomicLongArray bytes = new AtomicLongArray((int) steps);
        MultiLayerNetwork net = build();
        DdpOptions options = DdpOptions.builder().commHook(counting(hook, bytes)).build();
        pg.barrier().await();
        long t0 = System.nanoTime();
        try (DdpModel<MultiLayerNetwork> ddp = DdpModel.wrap(net, pg, options)) {
          for (int e = 0; e < epochs; e++) {
            for (int b = 0; b < batches; b++) {
              ddp.fit(data(1_000_000L * pg.rank() + b, batch));
            }
          }
        }
        double[] ms = {(System.nanoTime() - t0) / 1e6 / steps};
        pg.allReduce(HostBuffer.of(ms), ReduceOp.MAX).await();
        long total = 0;
        for (int s = 0; s < steps; s++) {
          total += bytes.get(s);
        }
        long steady = bytes.get((int) steps - 1);
        reference = r == 0 ? steady : reference;
        Evaluation eval =
            net.evaluate(
                new org.deeplearning4j.datasets.iterator.utilty.SingletonDataSetIterator(test));
        if (pg.rank() == 0) {
          System.out.printf(
              "| %s | %,d | %.1f%% | %,d | %.2f | %.3f |%n",
              r == 0 ? "allreduce" : "powersgd rank " + r,
              steady,
              100.0 * steady / reference,
              total / steps,
              ms[0],
              eval.accuracy());
        }
      }
    }
    return 0;
  }

  /** {@code hook}, adding the bytes of every array it all-reduces to its step's count. */
  private static CommHook counting(CommHook hook, AtomicLongArray bytes) {
    return CommHook.of(
        hook.name(),
        bytes,
        (counts, group, bucket) ->
            hook.start(
                group,
                bucket.withAllReduce(
                    array -> {
                      counts.addAndGet(
                          (int) bucket.step(), array.length() * array.data().getElementSize());
                      return bucket.allReduce(array);
                    })));
  }

  /**
   * {@code n} examples of a fixed task, the same for the same {@code seed}: Gaussian inputs,
   * labelled by which of {@code classes} fixed directions it is nearest to.
   */
  private DataSet data(long seed, int n) {
    INDArray directions = gaussian(12345, in, classes);
    INDArray x = gaussian(seed, n, in);
    INDArray best = x.mmul(directions).argMax(1);
    INDArray labels = Nd4j.zeros(DataType.FLOAT, n, classes);
    for (int i = 0; i < n; i++) {
      labels.putScalar(i, best.getInt(i), 1f);
    }
    return new DataSet(x, labels);
  }

  private static INDArray gaussian(long seed, int rows, int cols) {
    Random random = new Random(seed);
    float[] v = new float[rows * cols];
    for (int k = 0; k < v.length; k++) {
      v[k] = (float) random.nextGaussian();
    }
    return Nd4j.createFromArray(v).reshape(rows, cols);
  }

  private MultiLayerNetwork build() {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .updater(new Nesterovs(0.01, 0.9))
                .list(
                    new DenseLayer.Builder()
                        .nIn(in)
                        .nOut(width)
                        .activation(Activation.RELU)
                        .build(),
                    new DenseLayer.Builder()
                        .nIn(width)
                        .nOut(width)
                        .activation(Activation.RELU)
                        .build(),
                    new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                        .nIn(width)
                        .nOut(classes)
                        .activation(Activation.SOFTMAX)
                        .build())
                .build());
    net.init();
    return net;
  }
}
