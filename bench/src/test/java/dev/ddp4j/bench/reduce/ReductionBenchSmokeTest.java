package dev.ddp4j.bench.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DataType;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * CI's pass over {@link ReductionBench}: every element type and both memory kinds, two ops, the
 * smallest count, one 100 ms warmup and one 100 ms measurement in this JVM (no fork). It proves the
 * benchmark runs and times something; the numbers themselves come from {@code
 * bench/reduce-bench.sh}.
 */
class ReductionBenchSmokeTest {

  @Test
  void shouldTimeEveryTypeAndMemoryKindInAShortRun() throws RunnerException {
    Options options =
        new OptionsBuilder()
            .include(ReductionBench.class.getName())
            .forks(0)
            .warmupIterations(1)
            .warmupTime(TimeValue.milliseconds(100))
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .param("op", "SUM", "MAX")
            .param("count", "1024")
            .timeUnit(TimeUnit.NANOSECONDS)
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT)
            .build();

    Collection<RunResult> results = new Runner(options).run();

    int expected = DataType.values().length * 2 * ReductionBench.Memory.values().length;
    assertThat(results).hasSize(expected);
    for (RunResult r : results) {
      double nsPerCall = r.getPrimaryResult().getScore();
      assertThat(nsPerCall).as("ns per call of %s", r.getParams()).isFinite().isGreaterThan(0.0);
    }
  }
}
