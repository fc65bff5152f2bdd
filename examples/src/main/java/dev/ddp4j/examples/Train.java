package dev.ddp4j.examples;

import dev.ddp4j.ConfigException;
import dev.ddp4j.Ddp;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.checkpoint.Checkpoints;
import dev.ddp4j.runtime.data.DistributedDataSetIterator;
import dev.ddp4j.spi.Settings;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.nd4j.linalg.schedule.ScheduleType;
import org.nd4j.linalg.schedule.StepSchedule;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The main job: trains an MLP classifier data-parallel on every rank the launcher started, with
 * progress on rank 0, the final test accuracy over all ranks, and a checkpoint per epoch.
 *
 * <pre>
 * java -jar launcher/target/launcher.jar --nproc-per-node=4 --classpath examples/target/examples.jar Train
 * </pre>
 */
@Command(
    name = "Train",
    mixinStandardHelpOptions = true,
    description = "Data-parallel training of an MLP.")
public final class Train implements Callable<Integer> {

  @Option(
      names = "--epochs",
      defaultValue = "5",
      description = "Epochs. Default: ${DEFAULT-VALUE}.")
  int epochs;

  @Option(
      names = "--batch-size",
      defaultValue = "64",
      description = "Examples per step per rank. Default: ${DEFAULT-VALUE}.")
  int batchSize;

  @Option(
      names = "--examples",
      defaultValue = "24000",
      description = "Generated examples (10%% held out). Default: ${DEFAULT-VALUE}.")
  int examples;

  @Option(
      names = "--lr",
      defaultValue = "0.002",
      description =
          "Adam learning rate of the first epoch, halved after each epoch."
              + " Default: ${DEFAULT-VALUE}.")
  double learningRate;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Data and weight seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--checkpoint-dir",
      defaultValue = "checkpoints",
      description = "Where rank 0 writes checkpoints. Default: ${DEFAULT-VALUE}.")
  Path checkpointDir;

  @Option(
      names = "--resume",
      description = "Resume from the newest checkpoint in --checkpoint-dir.")
  boolean resume;

  static final int FEATURES = 32;
  static final int CLASSES = 10;

  /**
   * Parses the flags (help and usage errors printed by rank 0 only, since every rank gets the same
   * arguments), then trains. A configuration mistake, such as a plain {@code java} start without
   * the launcher's variables, ends with one line and status 2; anything else propagates, so the
   * launcher's worker bootstrap reports it once.
   */
  public static void main(String[] args) throws Exception {
    Train train = new Train();
    CommandLine cl = new CommandLine(train);
    boolean quietRank = !Settings.process().text(WorkerEnvironment.RANK, "0").equals("0");
    if (quietRank) {
      cl.setOut(new PrintWriter(OutputStream.nullOutputStream()));
      cl.setErr(new PrintWriter(OutputStream.nullOutputStream()));
    }
    try {
      if (CommandLine.printHelpIfRequested(cl.parseArgs(args))) {
        System.exit(0);
      }
    } catch (CommandLine.ParameterException e) {
      if (quietRank) {
        // Rank 0 got the same arguments and says so; its exit makes the launcher stop this rank.
        // Exiting first would get rank 0 stopped before it printed. Without a launcher, speak up.
        Thread.sleep(10_000);
      }
      System.err.println("Train: " + e.getMessage() + " (see Train --help)");
      System.exit(2);
    }
    try {
      train.call();
    } catch (ConfigException e) {
      System.err.println("Train: " + e.getMessage());
      System.exit(2);
    }
    System.exit(0);
  }

  @Override
  public Integer call() throws Exception {
    try (ProcessGroup pg = Ddp.init()) {
      // Every rank generates the same data from the seed; the last 10% is held out for testing.
      List<DataSet> all = TeacherData.generate(seed, examples, FEATURES, CLASSES).asList();
      int trainCount = examples * 9 / 10;
      DistributedDataSetIterator train =
          new DistributedDataSetIterator(
              new ListDataSetIterator<>(all.subList(0, trainCount), batchSize),
              pg.rank(),
              pg.size(),
              seed);
      DistributedDataSetIterator test =
          new DistributedDataSetIterator(
              new ListDataSetIterator<>(all.subList(trainCount, all.size()), 256),
              pg.rank(),
              pg.size(),
              seed,
              DistributedDataSetIterator.Remainder.DROP);
      Path latest = checkpointDir.resolve("latest.zip");
      int stepsPerEpoch = Math.max(1, (train.examplesPerEpoch() + batchSize - 1) / batchSize);
      MultiLayerNetwork net =
          resume && Files.exists(latest)
              ? Checkpoints.loadMultiLayerNetwork(latest)
              : build(stepsPerEpoch);
      int firstEpoch = net.getEpochCount();
      if (pg.rank() == 0) {
        System.out.printf(
            "Train: %d %s (%s backend), %d examples per rank per epoch, batch %d per rank, %d parameters%s%n",
            pg.size(),
            pg.size() == 1 ? "rank" : "ranks",
            pg.backend(),
            train.examplesPerEpoch(),
            batchSize,
            net.numParams(),
            firstEpoch > 0 ? ", resumed at epoch " + firstEpoch : "");
      }
      try (DdpModel<MultiLayerNetwork> ddp = DdpModel.wrap(net, pg)) {
        if (pg.rank() == 0) {
          System.out.println("Train: " + ddp.placement());
        }
        ProgressListener progress =
            new ProgressListener(pg, train.examplesPerEpoch() / batchSize, batchSize);
        net.addListeners(progress);
        for (int epoch = firstEpoch; epoch < epochs; epoch++) {
          train.setEpoch(epoch);
          progress.startEpoch(epoch, epochs);
          long startNs = System.nanoTime();
          ddp.fit(train);
          double seconds = (System.nanoTime() - startNs) / 1e9;
          Checkpoints.save(net, pg, latest);
          double accuracy = accuracy(ddp, test, pg);
          if (pg.rank() == 0) {
            System.out.printf(
                "epoch %d/%d done in %.1f s (%,.0f examples/s over %d %s): test accuracy %.2f%%,"
                    + " checkpoint %s%n",
                epoch + 1,
                epochs,
                seconds,
                (double) train.examplesPerEpoch() * pg.size() / seconds,
                pg.size(),
                pg.size() == 1 ? "rank" : "ranks",
                100 * accuracy,
                latest);
          }
        }
        double accuracy = accuracy(ddp, test, pg);
        if (pg.rank() == 0) {
          System.out.printf("final test accuracy: %.2f%%%n", 100 * accuracy);
        }
      }
    }
    return 0;
  }

  private MultiLayerNetwork build(int stepsPerEpoch) {
    // A constant rate leaves the accuracy wandering by a point from epoch 3 on; halving it after
    // every epoch lets it settle, so it rises epoch by epoch. A step schedule, not a table up to
    // --epochs, so that a run resumed with more epochs continues the same schedule.
    StepSchedule rate = new StepSchedule(ScheduleType.ITERATION, learningRate, 0.5, stepsPerEpoch);
    MultiLayerConfiguration conf =
        new NeuralNetConfiguration.Builder()
            .seed(seed)
            .dataType(DataType.FLOAT)
            .weightInit(WeightInit.XAVIER)
            .updater(new Adam(rate))
            .list()
            .layer(
                new DenseLayer.Builder()
                    .nIn(FEATURES)
                    .nOut(256)
                    .activation(Activation.RELU)
                    .build())
            .layer(new DenseLayer.Builder().nIn(256).nOut(256).activation(Activation.RELU).build())
            .layer(
                new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                    .nIn(256)
                    .nOut(CLASSES)
                    .activation(Activation.SOFTMAX)
                    .build())
            .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** Accuracy over every rank's shard of the test set. */
  private static double accuracy(
      DdpModel<MultiLayerNetwork> ddp, DistributedDataSetIterator test, ProcessGroup pg) {
    test.setEpoch(0);
    long[] counts = {0, 0};
    while (test.hasNext()) {
      DataSet batch = test.next();
      Evaluation e = new Evaluation(CLASSES);
      e.eval(batch.getLabels(), ddp.output(batch.getFeatures()));
      counts[0] += e.getTopNCorrectCount();
      counts[1] += e.getTopNTotalCount();
    }
    pg.allReduce(HostBuffer.of(counts), ReduceOp.SUM).await();
    return counts[1] == 0 ? 0 : (double) counts[0] / counts[1];
  }
}
