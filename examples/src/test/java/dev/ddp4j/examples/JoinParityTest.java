package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.api.Model;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.dataset.DataSet;

/**
 * Join (DDP4J_JOIN=1) on ranks started by the launcher, with uneven shards: ranks that ran out
 * replay steps until every rank did, and the job trains like one process fitting, at each step, the
 * concatenated batches of the ranks that still had one, within the noise floor; every rank holds
 * the same parameters bit for bit after every step, and only the first count of each epoch blocks.
 */
class JoinParityTest {

  private static final int LOCAL_BATCH = ParityCase.REPEATED_ROWS;
  private static final int EPOCHS = 2;

  @Test
  void twoUnevenRanksShouldTrainLikeOneProcessOnTheBatchesThatExist(@TempDir Path dir)
      throws Exception {
    check(
        new int[] {7, 4},
        Map.of("DDP4J_JOIN", "1"),
        dir,
        ParityCase.ADAM,
        ParityCase.NESTEROV_GRAPH,
        ParityCase.BATCHNORM_REPEATED);
  }

  @Test
  void threeUnevenRanksUnderZeroShouldTrainLikeOneProcessOnTheBatchesThatExist(@TempDir Path dir)
      throws Exception {
    // ZeRO-1's reduce-scatter and all-gather are replayed too: the sharded updater runs on every
    // rank, so a rank that ran out still updates (and gathers) its shard.
    check(
        new int[] {5, 2, 4},
        Map.of("DDP4J_JOIN", "1", "DDP4J_ZERO", "1"),
        dir,
        ParityCase.ADAM,
        ParityCase.ADAM_GRAPH);
  }

  private static void check(int[] batches, Map<String, String> env, Path dir, ParityCase... cases)
      throws Exception {
    int ranks = batches.length;
    LaunchedJob.runOk(
        ranks,
        env,
        JoinWorker.class.getName(),
        Arrays.stream(batches).mapToObj(Integer::toString).collect(Collectors.joining(",")),
        "" + LOCAL_BATCH,
        "" + EPOCHS,
        dir.toString(),
        Arrays.stream(cases).map(Enum::name).collect(Collectors.joining(",")));
    int longest = IntStream.of(batches).max().getAsInt();
    int steps = EPOCHS * longest;
    for (ParityCase c : cases) {
      List<List<float[]>> byRank = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        List<float[]> snapshots = LaunchedJob.snapshots(dir.resolve(c + ".rank" + r + ".params"));
        assertThat(snapshots)
            .as("%s rank %d: a snapshot per step, replays too", c, r)
            .hasSize(steps + 1);
        byRank.add(snapshots);
        assertThat(Files.readString(dir.resolve(c + ".rank" + r + ".stats")))
            .as("%s rank %d: one blocking count per epoch; steps replayed", c, r)
            .isEqualTo(
                "countWaits " + EPOCHS + " replayedSteps " + EPOCHS * (longest - batches[r]));
      }
      List<float[][]> reordered = new ArrayList<>();
      for (int k = 0; k < NoiseFloorParity.REORDERINGS; k++) {
        reordered.add(oneProcess(c, batches, k));
      }
      new NoiseFloorParity.Run(c, ranks, byRank, oneProcess(c, batches, -1), reordered)
          .assertRanksIdentical()
          .assertWithinFloor(NoiseFloorParity.FLOOR_FACTOR);
    }
  }

  private static final Map<String, float[][]> ONE_PROCESS = new HashMap<>();

  /**
   * One process, each epoch, fitting at step s the rows of every rank that has a batch s, in rank
   * order (reordering -1) or in {@link NoiseFloorParity#rowOrder}'s.
   */
  private static float[][] oneProcess(ParityCase c, int[] batches, int reordering) {
    return ONE_PROCESS.computeIfAbsent(
        c + Arrays.toString(batches) + reordering, k -> train(c, batches, reordering));
  }

  private static float[][] train(ParityCase c, int[] batches, int reordering) {
    int longest = IntStream.of(batches).max().getAsInt();
    Model m = c.model(1234);
    float[][] out = new float[EPOCHS * longest + 1][];
    out[0] = m.params().dup().data().asFloat();
    int at = 1;
    for (int e = 0; e < EPOCHS; e++) {
      for (int s = 0; s < longest; s++) {
        int step = s;
        int[] having = IntStream.range(0, batches.length).filter(r -> step < batches[r]).toArray();
        DataSet global = c.globalBatch(s, LOCAL_BATCH * batches.length);
        int[] rows =
            IntStream.of(having)
                .flatMap(r -> IntStream.range(r * LOCAL_BATCH, (r + 1) * LOCAL_BATCH))
                .toArray();
        if (reordering >= 0) {
          int[] order = NoiseFloorParity.rowOrder(reordering, s, rows.length);
          int[] shuffled = new int[rows.length];
          for (int i = 0; i < rows.length; i++) {
            shuffled[i] = rows[order[i]];
          }
          rows = shuffled;
        }
        ParityCase.fit(m, NoiseFloorParity.rows(global, rows));
        out[at++] = m.params().dup().data().asFloat();
      }
    }
    return out;
  }
}
