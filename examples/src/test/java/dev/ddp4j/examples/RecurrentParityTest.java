package dev.ddp4j.examples;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An LSTM trained with truncated BPTT, as a MultiLayerNetwork and as a ComputationGraph: every fit
 * runs {@value RecurrentModels#SEGMENTS} segments, each its own forward, backward and update, so
 * each must be a synchronised step of its own.
 */
class RecurrentParityTest {

  private static final int STEPS = 3;
  private static final int LOCAL_BATCH = 4;

  @Test
  void truncatedBpttShouldSynchroniseEverySegmentAndMatchOneProcess(@TempDir Path dir)
      throws Exception {
    NoiseFloorParity.Job job =
        NoiseFloorParity.launch(
            2,
            Map.of(),
            STEPS,
            LOCAL_BATCH,
            dir,
            ParityCase.LSTM_TBPTT,
            ParityCase.LSTM_TBPTT_GRAPH);
    for (ParityCase c : new ParityCase[] {ParityCase.LSTM_TBPTT, ParityCase.LSTM_TBPTT_GRAPH}) {
      job.run(c).assertRanksIdentical().assertWithinFloor(NoiseFloorParity.FLOOR_FACTOR);
    }
  }
}
