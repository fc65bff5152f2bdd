package dev.ddp4j.examples;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An LSTM trained with truncated BPTT, as a MultiLayerNetwork and as a ComputationGraph: every fit
 * runs {@value RecurrentModels#SEGMENTS} segments, each its own forward, backward and update, so
 * each must be a synchronised step of its own.
 */
class RecurrentParityTest {

  private static final int STEPS = 3;

  /** 2 and 4 ranks split the same 8 sequences per step, so one process's runs are shared. */
  private static final int GLOBAL_BATCH = 8;

  @ParameterizedTest(name = "{0} ranks")
  @ValueSource(ints = {2, 4})
  void truncatedBpttShouldSynchroniseEverySegmentAndMatchOneProcess(int ranks, @TempDir Path dir)
      throws Exception {
    NoiseFloorParity.Job job =
        NoiseFloorParity.launch(
            ranks,
            Map.of(),
            STEPS,
            GLOBAL_BATCH / ranks,
            dir,
            ParityCase.LSTM_TBPTT,
            ParityCase.LSTM_TBPTT_GRAPH);
    for (ParityCase c : new ParityCase[] {ParityCase.LSTM_TBPTT, ParityCase.LSTM_TBPTT_GRAPH}) {
      job.run(c).assertRanksIdentical().assertWithinFloor(NoiseFloorParity.FLOOR_FACTOR);
    }
  }
}
