package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.GpuHarness;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.List;

/**
 * The cuda backend on real GPUs, one JVM per GPU: every op, dtype and size class against a float64
 * reference (the cases are in harness.AllReduceCheck; each rank fails its process on a wrong
 * element), plus reduceScatter, allGather, broadcast (CollectiveCheck) and barrier.
 */
class CudaAllReduceGpuTest {

  private static LocalRanks.Result check(int ranks) throws Exception {
    LocalRanks.Result r =
        LocalRanks.run(
            ranks,
            GpuHarness.class.getName(),
            List.of("check", "--worker"),
            List.of("-Xmx4g", "-XX:MaxDirectMemorySize=6g"),
            Duration.ofMinutes(8));
    for (int i = 0; i < ranks; i++) {
      System.out.println("---- rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    return r;
  }

  @GpuTest
  void shouldReduceEveryOpAndDtypeOnOneGpu() throws Exception {
    LocalRanks.Result r = check(1);
    assertThat(r.outputs().get(0)).contains("0 failed").doesNotContain("FAIL");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldReduceEveryOpAndDtypeAcrossTwoGpusWithEveryAlgorithm() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs");
    LocalRanks.Result r = check(2);
    for (String out : r.outputs()) {
      assertThat(out).contains(" 0 failed").doesNotContain("FAIL");
    }
    assertThat(r.outputs().get(0))
        .contains("allReduce auto    SUM     FLOAT32  268435456 in-place")
        .contains("reduceScatter PRODUCT BFLOAT16")
        .contains("allGather FLOAT16")
        .contains("broadcast INT8")
        .contains("allReduce twoshot")
        .contains("allReduce oneshot")
        .contains("allReduce copyengine")
        .contains("allReduce ll")
        .contains("allReduce ring");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldRunEveryCollectiveAcrossFourGpus() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 4, "needs 4 GPUs");
    LocalRanks.Result r = check(4);
    for (String out : r.outputs()) {
      assertThat(out).contains(" 0 failed").doesNotContain("FAIL");
    }
    assertThat(r.outputs().get(0)).contains("reduceScatter").contains("broadcast INT8");
    assertThat(r.allPassed()).isTrue();
  }
}
