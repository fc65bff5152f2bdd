package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where parity cannot hold, DdpModel says so once per job at wrap time (rank 0), and the ranks
 * still agree with each other bit for bit. Batch norm without sync is checked in {@link
 * ResNetParityTest}.
 */
class ParityLimitsLogTest {

  private static final String DROPOUT_NOTICE =
      "layer(s) with dropout: ranks draw different masks; results match one process in"
          + " expectation, not bitwise";

  @Test
  void dropoutShouldBeNamedOnceAtWrapTimeWhileRanksStayIdentical(@TempDir Path dir)
      throws Exception {
    NoiseFloorParity.Job job =
        NoiseFloorParity.launch(2, Map.of(), 2, 6, dir, ParityCase.DROPOUT, ParityCase.ADAM);
    assertThat(job.count(DROPOUT_NOTICE))
        .as("the dropout notice, once for the one dropout model; output:%n%s", job.output())
        .isEqualTo(1);
    assertThat(job.output()).contains("DdpModel: 4 " + DROPOUT_NOTICE);
    job.output().lines().filter(l -> l.contains(DROPOUT_NOTICE)).forEach(System.out::println);
    job.run(ParityCase.DROPOUT).assertRanksIdentical();
    job.run(ParityCase.ADAM).assertRanksIdentical();
  }
}
