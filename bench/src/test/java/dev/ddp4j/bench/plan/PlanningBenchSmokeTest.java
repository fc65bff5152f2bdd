package dev.ddp4j.bench.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * CI's pass over {@link PlanningBench}: one timed run per topology (about 10 s, most of it the two
 * 512-GPU plans), checking that every line the benchmark prints came out with a time in it.
 */
class PlanningBenchSmokeTest {

  @Test
  void shouldPrintATimeForEveryTopologyAndTheRingSearch() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      PlanningBench.main(new String[] {"1"});
    } finally {
      System.setOut(stdout);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    stdout.print(out);

    assertThat(out.lines().filter(l -> l.matches(".* first +[0-9.]+ ms, median +[0-9.]+ ms, .*")))
        .hasSize(5);
    assertThat(out).containsPattern("ring search on DGX-1: branch and bound [0-9.]+ ms");
  }
}
