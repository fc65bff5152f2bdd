package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transfer learning under DdpModel: the trainable layers match one process within the noise floor,
 * and every frozen parameter on every rank stays bit for bit what rank 0 started with.
 */
class FrozenLayerParityTest {

  private static final int STEPS = 4;

  /** 2 and 4 ranks split the same 12 examples per step, so one process's runs are shared. */
  private static final int GLOBAL_BATCH = 12;

  @ParameterizedTest(name = "{0} ranks")
  @ValueSource(ints = {2, 4})
  void frozenLayersShouldStayBitwiseUnchangedOnEveryRankWhileTheRestMatchesOneProcess(
      int ranks, @TempDir Path dir) throws Exception {
    Map<ParityCase, NoiseFloorParity.Run> runs =
        NoiseFloorParity.launch(
                ranks,
                Map.of(),
                STEPS,
                GLOBAL_BATCH / ranks,
                dir,
                ParityCase.FROZEN_FEATURE_EXTRACTOR,
                ParityCase.FROZEN_WITH_BACKPROP)
            .runs();
    for (NoiseFloorParity.Run run : runs.values()) {
      run.assertRanksIdentical().assertWithinFloor(NoiseFloorParity.FLOOR_FACTOR);
      int[] frozen = FrozenModels.frozenParameterIndices(run.parityCase().model(1));
      assertThat(frozen).as("%s has frozen parameters", run.parityCase()).isNotEmpty();
      float[] start = pick(run.expected()[0], frozen);
      for (int r = 0; r < ranks; r++) {
        for (int s = 0; s <= STEPS; s++) {
          assertThat(pick(run.rank(r).get(s), frozen))
              .as("%s rank %d frozen parameters after step %d", run.parityCase(), r, s)
              .isEqualTo(start);
        }
      }
      assertThat(run.rank(0).get(STEPS))
          .as("%s: the trainable layers did train", run.parityCase())
          .isNotEqualTo(run.rank(0).get(0));
    }
  }

  private static float[] pick(float[] params, int[] indices) {
    float[] out = new float[indices.length];
    for (int i = 0; i < indices.length; i++) {
      out[i] = params[indices[i]];
    }
    return out;
  }
}
