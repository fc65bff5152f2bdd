package dev.ddp4j.examples;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Updaters with state (moments, accumulators, velocity) under DdpModel: rank 0's state is broadcast
 * at wrap time and every rank's update must match one process's, within the noise floor. One job
 * trains all four models in turn, to pay for the JVM starts once.
 */
class UpdaterParityTest {

  private static final int STEPS = 5;

  /** 2 and 4 ranks split the same 12 examples per step, so one process's runs are shared. */
  private static final int GLOBAL_BATCH = 12;

  @ParameterizedTest(name = "{0} ranks")
  @ValueSource(ints = {2, 4})
  void statefulUpdatersShouldMatchOneProcessWithinTheNoiseFloor(int ranks, @TempDir Path dir)
      throws Exception {
    for (NoiseFloorParity.Run run :
        NoiseFloorParity.launch(
                ranks,
                Map.of(),
                STEPS,
                GLOBAL_BATCH / ranks,
                dir,
                ParityCase.ADAM,
                ParityCase.NESTEROV,
                ParityCase.ADADELTA,
                ParityCase.RMSPROP)
            .runs()
            .values()) {
      run.assertRanksIdentical().assertWithinFloor(NoiseFloorParity.FLOOR_FACTOR);
    }
  }
}
