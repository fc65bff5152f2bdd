package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.DdpStats;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.nd4j.linalg.dataset.DataSet;

/**
 * A worker of {@link JoinParityTest}, started by the launcher: rank r holds {@code batches[r]}
 * batches of {@code localBatch} examples (step s's batch is rank r's rows of {@link
 * ParityCase#globalBatch}), and fits them with {@code fit(iterator, epochs)}; {@code DDP4J_JOIN}
 * and the other options come from the environment. Writes the parameters after the broadcast and
 * after every step (replayed ones too) to {@code <outDir>/<case>.rank<R>.params}, and the rank's
 * {@link DdpStats} counts to {@code <case>.rank<R>.stats}.
 *
 * <p>Arguments: {@code batches[,batches...] localBatch epochs outDir case[,case...]}.
 */
public final class JoinWorker {

  private JoinWorker() {}

  public static void main(String[] args) throws Exception {
    String[] counts = args[0].split(",");
    int localBatch = Integer.parseInt(args[1]);
    int epochs = Integer.parseInt(args[2]);
    Path out = Path.of(args[3]);
    try (ProcessGroup pg = Ddp.init()) {
      int mine = Integer.parseInt(counts[pg.rank()]);
      for (String name : args[4].split(",")) {
        ParityCase c = ParityCase.valueOf(name);
        Model model = c.model(1234 + pg.rank());
        List<DataSet> batches = new ArrayList<>();
        for (int s = 0; s < mine; s++) {
          DataSet global = c.globalBatch(s, localBatch * pg.size());
          batches.add(ParityModels.rows(global, pg.rank() * localBatch, localBatch));
        }
        DdpOptions options =
            DdpOptions.fromEnvironment().toBuilder()
                .firstBucketBytes(64)
                .bucketCapBytes(2048)
                .build();
        Path params = out.resolve(c + ".rank" + pg.rank() + ".params");
        try (DataOutputStream o = new DataOutputStream(new FileOutputStream(params.toFile()));
            DdpModel ddp = ParityCase.wrap(model, pg, options)) {
          write(o, model);
          listen(
              model,
              new BaseTrainingListener() {
                @Override
                public void iterationDone(Model m, int iteration, int epoch) {
                  write(o, m);
                }
              });
          ddp.fit(new ListDataSetIterator<>(batches, 1), epochs);
          DdpStats stats = ddp.stats();
          Files.writeString(
              out.resolve(c + ".rank" + pg.rank() + ".stats"),
              "countWaits " + stats.countWaits() + " replayedSteps " + stats.replayedSteps());
        }
      }
    }
  }

  private static void listen(Model m, BaseTrainingListener l) {
    if (m instanceof MultiLayerNetwork net) {
      net.addListeners(l);
    } else {
      ((ComputationGraph) m).addListeners(l);
    }
  }

  private static void write(DataOutputStream o, Model model) {
    try {
      ParityCaseWorker.write(o, model);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
