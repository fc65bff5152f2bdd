package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;

/**
 * Workers for the DdpModel behaviours beyond plain parity, started by the launcher. Arguments:
 * {@code scenario outDir}.
 *
 * <ul>
 *   <li>{@code nosync}: two synchronised steps, each after three noSync micro-batches of 5 examples
 *       per rank; writes parameters like ParityWorker.
 *   <li>{@code uneven}: rank r has 3 + r batches per epoch; two epochs of fit(iterator); writes the
 *       iteration count reached and how often the step counts blocked.
 *   <li>{@code join-empty}: join on, rank 0 has 2 batches and rank 1 none; writes fit's error.
 *   <li>{@code nosync-tbptt}: noSync() on an LSTM trained with truncated BPTT; writes its error.
 * </ul>
 */
public final class ScenarioWorker {

  static final int MICRO = 5;
  static final int MICRO_STEPS = 4;

  private ScenarioWorker() {}

  public static void main(String[] args) throws Exception {
    String scenario = args[0];
    Path out = Path.of(args[1]);
    try (ProcessGroup pg = Ddp.init()) {
      MultiLayerNetwork net =
          scenario.equals("nosync-tbptt")
              ? RecurrentModels.lstm(1234)
              : ParityModels.multiLayer("adam", 1234);
      try (DdpModel ddp =
          DdpModel.wrap(
              net,
              pg,
              DdpOptions.builder()
                  .firstBucketBytes(64)
                  .bucketCapBytes(2048)
                  .join(scenario.equals("join-empty"))
                  .build())) {
        if (scenario.equals("nosync")) {
          List<float[]> snapshots = new ArrayList<>();
          for (int s = 0; s < 2; s++) {
            DataSet global = ParityModels.globalBatch(7, s, MICRO_STEPS * MICRO * pg.size());
            for (int m = 0; m < MICRO_STEPS; m++) {
              DataSet micro = ParityModels.rows(global, (m * pg.size() + pg.rank()) * MICRO, MICRO);
              if (m < MICRO_STEPS - 1) {
                try (DdpModel.NoSync ns = ddp.noSync()) {
                  ddp.fit(micro);
                }
              } else {
                ddp.fit(micro);
              }
            }
            snapshots.add(net.params().dup().data().asFloat());
          }
          Files.writeString(out.resolve("rank" + pg.rank() + ".txt"), toText(snapshots.get(1)));
        } else if (scenario.equals("uneven")) {
          List<DataSet> batches = new ArrayList<>();
          for (int b = 0; b < 3 + pg.rank(); b++) {
            batches.add(ParityModels.globalBatch(3, b, 4));
          }
          ddp.fit(new ListDataSetIterator<>(batches, 1), 2);
          Files.writeString(
              out.resolve("rank" + pg.rank() + ".txt"),
              "iterations " + net.getIterationCount() + " countWaits " + ddp.stats().countWaits());
        } else if (scenario.equals("join-empty")) {
          List<DataSet> batches = new ArrayList<>();
          for (int b = 0; b < 2 * (1 - pg.rank()); b++) {
            batches.add(ParityModels.globalBatch(3, b, 4));
          }
          String error = "none";
          try {
            ddp.fit(new ListDataSetIterator<>(batches, 1));
          } catch (IllegalStateException e) {
            error = e.getMessage();
          }
          Files.writeString(out.resolve("rank" + pg.rank() + ".txt"), error);
        } else if (scenario.equals("nosync-tbptt")) {
          String error = "none";
          try {
            ddp.noSync().close();
          } catch (IllegalStateException e) {
            error = e.getMessage();
          }
          Files.writeString(out.resolve("rank" + pg.rank() + ".txt"), error);
        } else {
          throw new IllegalArgumentException(
              "scenario '" + scenario + "' (expected: nosync, uneven, join-empty or nosync-tbptt)");
        }
      }
    }
  }

  static String toText(float[] p) {
    StringBuilder sb = new StringBuilder();
    for (float v : p) {
      sb.append(Float.floatToRawIntBits(v)).append('\n');
    }
    return sb.toString();
  }

  static float[] fromText(String s) {
    String[] lines = s.trim().split("\n");
    float[] p = new float[lines.length];
    for (int i = 0; i < p.length; i++) {
      p[i] = Float.intBitsToFloat(Integer.parseInt(lines[i]));
    }
    return p;
  }
}
