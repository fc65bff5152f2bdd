package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The parity suite's one harness: N ranks started by the launcher ({@link ParityCaseWorker}) train
 * each {@link ParityCase} on B examples per rank, and are held to one process fitting the N*B
 * examples within the float noise floor measured here: that same one process fed each batch with
 * its rows reordered ({@value #REORDERINGS} ways), which changes nothing but the order of the sums.
 * A fixed tolerance would be too loose for one model and too tight for the next; the floor is each
 * model's own.
 */
final class NoiseFloorParity {

  /**
   * How far above its noise floor a case may land, unless its test says otherwise. Measured on the
   * small models here (updaters, frozen layers, truncated BPTT; 2 and 4 ranks): at most 1.46x, most
   * steps below 1x; the floor is itself one sample of the noise, so the ratio scatters. A real
   * parity bug lands far above: the unsynchronised truncated BPTT segments were 2 million x.
   */
  static final double FLOOR_FACTOR = 2.5;

  /** How many reorderings of one process the floor is the worst of. */
  static final int REORDERINGS = 3;

  private NoiseFloorParity() {}

  /** One case's run: every rank's parameters and the two one-process references, per step. */
  record Run(
      ParityCase parityCase,
      int ranks,
      List<List<float[]>> byRank,
      float[][] expected,
      List<float[][]> reorderings) {

    int steps() {
      return expected.length - 1;
    }

    List<float[]> rank(int r) {
      return byRank.get(r);
    }

    /** Every rank holds rank 0's parameters bit for bit, after the broadcast and every step. */
    Run assertRanksIdentical() {
      for (int r = 1; r < ranks; r++) {
        for (int s = 0; s <= steps(); s++) {
          float[] mine = rank(r).get(s);
          float[] root = rank(0).get(s);
          int differ = 0;
          int first = -1;
          for (int i = 0; i < Math.min(mine.length, root.length); i++) {
            if (Float.floatToIntBits(mine[i]) != Float.floatToIntBits(root[i])) {
              differ++;
              first = first < 0 ? i : first;
            }
          }
          assertThat(differ == 0 && mine.length == root.length)
              .as(
                  "%s: rank %d equals rank 0 after step %d, but %d of %d parameters differ (first"
                      + " at %d: %s vs %s; worst relative %.3g)",
                  parityCase,
                  r,
                  s,
                  differ,
                  root.length,
                  first,
                  first < 0 ? "-" : mine[first],
                  first < 0 ? "-" : root[first],
                  worstRelative(mine, root))
              .isTrue();
        }
      }
      return this;
    }

    /** Worst relative difference of the ranks from one process after step {@code s}. */
    double error(int s) {
      return worstRelative(rank(0).get(s), expected[s]);
    }

    /**
     * The noise floor after step {@code s}: the worst relative difference of any reordered one
     * process from one process.
     */
    double floor(int s) {
      double worst = 0;
      for (float[][] reordered : reorderings) {
        worst = Math.max(worst, worstRelative(reordered[s], expected[s]));
      }
      return worst;
    }

    /**
     * After every step the ranks are within {@code factor} times the noise floor of one process,
     * and the floor is not zero (the reordering moved something, so the bound means something).
     */
    Run assertWithinFloor(double factor) {
      for (int s = 1; s <= steps(); s++) {
        double floor = floor(s);
        double error = error(s);
        report(s, "");
        assertThat(floor)
            .as("%s step %d: the reordered batch moved the parameters", parityCase, s)
            .isPositive();
        assertThat(error)
            .as(
                "%s step %d: worst relative difference of %d ranks from one process vs floor %.3g",
                parityCase, s, ranks, floor)
            .isLessThanOrEqualTo(factor * floor);
      }
      return this;
    }

    /** Prints step {@code s}'s difference against its floor (the suite's measurements). */
    void report(int s, String note) {
      double floor = floor(s);
      double error = error(s);
      System.out.printf(
          "parity %s %d ranks step %d: ranks vs one process %.3g, noise floor %.3g (%.2fx)%s%n",
          parityCase, ranks, s, error, floor, error / floor, note);
    }
  }

  /**
   * Launches one job of {@code ranks} workers that trains every case in {@code cases} for {@code
   * steps} steps, and computes each case's references in this JVM.
   */
  static Job launch(
      int ranks, Map<String, String> env, int steps, int localBatch, Path dir, ParityCase... cases)
      throws Exception {
    return launch(ranks, env, steps, localBatch, REORDERINGS, dir, cases);
  }

  /**
   * As above, with the floor the worst of {@code reorderings} reorderings (fewer: cheaper, lower).
   */
  static Job launch(
      int ranks,
      Map<String, String> env,
      int steps,
      int localBatch,
      int reorderings,
      Path dir,
      ParityCase... cases)
      throws Exception {
    String names = Stream.of(cases).map(Enum::name).collect(Collectors.joining(","));
    String output =
        LaunchedJob.runOk(
            ranks,
            env,
            ParityCaseWorker.class.getName(),
            "" + steps,
            "" + localBatch,
            dir.toString(),
            names);
    Map<ParityCase, Run> runs = new EnumMap<>(ParityCase.class);
    for (ParityCase c : cases) {
      List<List<float[]>> byRank = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        List<float[]> snapshots = LaunchedJob.snapshots(dir.resolve(c + ".rank" + r + ".params"));
        assertThat(snapshots).as("%s rank %d snapshots", c, r).hasSize(steps + 1);
        byRank.add(snapshots);
      }
      int global = localBatch * ranks;
      List<float[][]> reordered = new ArrayList<>();
      for (int k = 0; k < reorderings; k++) {
        reordered.add(oneProcess(c, steps, global, k));
      }
      runs.put(c, new Run(c, ranks, byRank, oneProcess(c, steps, global, -1), reordered));
    }
    return new Job(runs, output);
  }

  /** A launched job: each case's run, and what the job printed. */
  record Job(Map<ParityCase, Run> runs, String output) {
    Run run(ParityCase c) {
      return runs.get(c);
    }

    /** How many times the job printed {@code text}. */
    int count(String text) {
      int n = 0;
      for (int at = output.indexOf(text); at >= 0; at = output.indexOf(text, at + 1)) {
        n++;
      }
      return n;
    }
  }

  /**
   * Parameters after each step of one process on the global batches: rows in order for {@code
   * reordering} -1, else in the order {@link #rowOrder} gives.
   */
  static float[][] oneProcess(ParityCase c, int steps, int examples, int reordering) {
    // One process on the same global batches is the same run whether 2 or 4 ranks split them: the
    // tests of one JVM share it (CI time is mostly these one-process runs and JVM starts).
    return ONE_PROCESS.computeIfAbsent(
        c + "/" + steps + "/" + examples + "/" + reordering,
        k -> train(c, steps, examples, reordering));
  }

  private static final Map<String, float[][]> ONE_PROCESS = new ConcurrentHashMap<>();

  private static float[][] train(ParityCase c, int steps, int examples, int reordering) {
    Model m = c.model(1234);
    float[][] out = new float[steps + 1][];
    out[0] = m.params().dup().data().asFloat();
    for (int s = 0; s < steps; s++) {
      DataSet d = c.globalBatch(s, examples);
      ParityCase.fit(m, reordering < 0 ? d : rows(d, rowOrder(reordering, s, examples)));
      out[s + 1] = m.params().dup().data().asFloat();
    }
    return out;
  }

  /**
   * Reordering 0 reverses the rows; the others shuffle them with a seed of their own (one
   * reordering can leave a threshold, a ReLU near zero, on the same side where the ranks' order
   * crosses it; the worst of several is the floor).
   */
  static int[] rowOrder(int reordering, int step, int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = reordering == 0 ? n - 1 - i : i;
    }
    java.util.Random random = new java.util.Random(31L * reordering + step);
    for (int i = n - 1; reordering > 0 && i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }

  /** {@code d}'s rows in {@code order}: the same batch, summed in another order. */
  static DataSet rows(DataSet d, int[] order) {
    INDArray[] x = new INDArray[order.length];
    INDArray[] y = new INDArray[order.length];
    for (int i = 0; i < order.length; i++) {
      x[i] = d.getFeatures().get(NDArrayIndex.interval(order[i], order[i] + 1)).dup();
      y[i] = d.getLabels().get(NDArrayIndex.interval(order[i], order[i] + 1)).dup();
    }
    return new DataSet(Nd4j.concat(0, x), Nd4j.concat(0, y));
  }

  /** max |a - e| / (|e| + 0.01) over all parameters: relative, without blowing up near zero. */
  static double worstRelative(float[] actual, float[] expected) {
    assertThat(actual).as("parameter count").hasSameSizeAs(expected);
    double worst = 0;
    for (int i = 0; i < expected.length; i++) {
      worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (Math.abs(expected[i]) + 1e-2));
    }
    return worst;
  }
}
