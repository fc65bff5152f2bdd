package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Synchronised batch norm stays exact at depth (issue 18): ranks started by the launcher train a
 * ResNet-style graph with {@value ResNetModels#BATCH_NORMS} BatchNormalization layers like one
 * process on the concatenated batch, within the noise floor {@link NoiseFloorParity} measures.
 * Before the fix (float32 E[x^2] - E[x]^2), the difference was about twice that floor. At step 5 on
 * 4 ranks (16 examples) a threshold flips: one process moves 2e-2 when its rows are merely
 * shuffled, and so do the ranks; the floor, the worst of several reorderings, sees it. Without sync
 * BN each rank normalises with its own batch: parity does not hold, and is not claimed.
 */
class ResNetParityTest {

  private static final int STEPS = 5;

  /** Every test splits the same 8 examples per step, so one process's runs are shared. */
  private static final int GLOBAL_BATCH = 8;

  /**
   * How far above the noise floor the ranks may land. Measured on this model and data (the floor
   * the worst of 3 reorderings): float64 statistics 0.66-1.03x over the 5 steps on 2 ranks,
   * 0.69-1.01x on 4; the float32 E[x^2] - E[x]^2 they replace 1.81x on 2 ranks at step 2 already
   * (DL4J's own float32 batch norm, the reference, makes the floor itself large here). On 4 ranks
   * of 2 examples float32 stays at 1.10-1.12x: the 2-rank case is the tripwire (4 ranks of 4
   * examples tripped it too, 1.78x, at the price of one-process runs of their own).
   */
  private static final double FLOOR_FACTOR = 1.5;

  @ParameterizedTest(name = "{0} ranks")
  @ValueSource(ints = {2, 4})
  void syncBatchNormOnADeepResidualGraphShouldMatchOneProcessWithinTheNoiseFloor(
      int ranks, @TempDir Path dir) throws Exception {
    NoiseFloorParity.Job job =
        NoiseFloorParity.launch(
            ranks,
            Map.of("DDP4J_SYNC_BATCHNORM", "1"),
            STEPS,
            GLOBAL_BATCH / ranks,
            dir,
            ParityCase.RESNET);
    job.run(ParityCase.RESNET).assertRanksIdentical().assertWithinFloor(FLOOR_FACTOR);
    assertThat(job.count(PER_RANK_NOTICE)).as("no per-rank notice with sync BN").isZero();
  }

  /** What DdpModel logs at wrap time for batch norm without sync (ParityLimits). */
  static final String PER_RANK_NOTICE =
      ResNetModels.BATCH_NORMS
          + " BatchNormalization layer(s) normalise with each rank's own batch statistics";

  /**
   * Per-rank batch norm (the default) normalises each rank's examples with that rank's own
   * statistics, so the ranks train a different model than one process on the whole batch (docs/
   * ddp.md says so). What must still hold: every rank the same parameters and running statistics,
   * bit for bit, and a stable run.
   */
  @Test
  void perRankBatchNormShouldKeepRanksIdenticalAndStableButNotClaimParity(@TempDir Path dir)
      throws Exception {
    NoiseFloorParity.Job job =
        NoiseFloorParity.launch(
            2,
            Map.of("DDP4J_SYNC_BATCHNORM", "0"),
            STEPS,
            GLOBAL_BATCH / 2,
            1, // the floor only has to show the difference is not rounding: one reordering will do
            dir,
            ParityCase.RESNET);
    assertThat(job.count(PER_RANK_NOTICE))
        .as(
            "DdpModel says once, at wrap time, that parity does not hold; output:%n%s",
            job.output())
        .isEqualTo(1);
    NoiseFloorParity.Run run = job.run(ParityCase.RESNET).assertRanksIdentical();
    for (int s = 1; s <= STEPS; s++) {
      run.report(s, " (per-rank BN: parity not expected)");
      for (float v : run.rank(0).get(s)) {
        assertThat(Float.isFinite(v)).as("every parameter finite after step %d", s).isTrue();
      }
    }
    // The difference is the model's, not float noise: far above the floor.
    assertThat(run.error(STEPS)).isGreaterThan(10 * run.floor(STEPS));
  }
}
