package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ZeRO-1 (DDP4J_ZERO=1) on ranks started by the launcher: with the updater state sharded, Adam and
 * Nesterovs on MultiLayerNetwork and ComputationGraph, and an LSTM under truncated BPTT (an update
 * per segment), and a model with a frozen layer (NoOp updater), still train like one process
 * fitting the concatenated batches, within the noise floor, and every rank holds the same
 * parameters bit for bit after every step. Buckets of 75, 600, 600 and 216 elements: on 2 ranks the
 * first leaves a tail (what padding covers); ZeroRedundancyTest covers tails on 3 ranks.
 */
class ZeroParityTest {

  private static final int STEPS = 5;
  private static final int GLOBAL_BATCH = 12;

  @ParameterizedTest(name = "{0} ranks")
  @ValueSource(ints = {2, 3})
  void shardedUpdaterStateShouldTrainLikeOneProcess(int ranks, @TempDir Path dir) throws Exception {
    NoiseFloorParity.Job job =
        NoiseFloorParity.launch(
            ranks,
            Map.of("DDP4J_ZERO", "1", "DDP4J_DEBUG", "INFO"),
            STEPS,
            GLOBAL_BATCH / ranks,
            dir,
            ParityCase.ADAM,
            ParityCase.NESTEROV,
            ParityCase.ADAM_GRAPH,
            ParityCase.NESTEROV_GRAPH,
            ParityCase.LSTM_TBPTT,
            ParityCase.FROZEN_WITH_BACKPROP);
    assertThat(job.count("comm hook zero-1 (reduce-scatter, all-gather)"))
        .as("rank 0 says ZeRO-1 is on, once per model; output:%n%s", job.output())
        .isEqualTo(6);
    for (NoiseFloorParity.Run run : job.runs().values()) {
      run.assertRanksIdentical().assertWithinFloor(NoiseFloorParity.FLOOR_FACTOR);
    }
  }
}
