package dev.ddp4j.bench.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.nccl.NcclLibrary;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.List;

/**
 * The device bucket engine on real GPUs, one JVM per GPU ({@link EngineGpuCheck}): the averaged
 * gradient equals the float64 host reference after a step on 1 and 2 GPUs (and on an nccl group of
 * one rank per GPU, up to 2), and in a GPU-timed step the first bucket's all-reduce runs while
 * backward is still running.
 */
class DeviceGradientReducerGpuTest {

  private static LocalRanks.Result run(int ranks, String mode) throws Exception {
    return run(ranks, mode, "cuda");
  }

  private static LocalRanks.Result run(int ranks, String mode, String backend) throws Exception {
    LocalRanks.Result r =
        LocalRanks.run(
            ranks,
            EngineGpuCheck.class.getName(),
            List.of(mode, backend),
            List.of("-Xmx2g"),
            Duration.ofMinutes(2));
    r.outputs().forEach(System.out::print);
    return r;
  }

  @GpuTest
  void shouldAverageTheGradientExactlyLikeTheFloat64ReferenceOnOneGpu() throws Exception {
    LocalRanks.Result r = run(1, "reduce");
    assertThat(r.exitCodes()).as(String.join("", r.outputs())).containsOnly(0);
    assertThat(r.outputs().get(0)).contains(" 0 mismatches");
  }

  @GpuTest
  void shouldAverageTheGradientExactlyLikeTheFloat64ReferenceOnTwoGpus() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs");
    LocalRanks.Result r = run(2, "reduce");
    assertThat(r.exitCodes()).as(String.join("", r.outputs())).containsOnly(0);
    assertThat(r.outputs()).allSatisfy(o -> assertThat(o).contains(" 0 mismatches"));
  }

  @GpuTest
  void shouldAverageTheGradientExactlyLikeTheFloat64ReferenceOnAnNcclGroup() throws Exception {
    assumeTrue(
        NcclLibrary.unavailableReason().isEmpty(),
        () -> "needs NCCL: " + NcclLibrary.unavailableReason().orElse(""));
    int ranks = Math.min(2, CudaProbe.gpus().size());
    LocalRanks.Result r = run(ranks, "reduce", "nccl");
    assertThat(r.exitCodes()).as(String.join("", r.outputs())).containsOnly(0);
    assertThat(r.outputs())
        .allSatisfy(o -> assertThat(o).contains("(nccl)").contains(" 0 mismatches"));
  }

  @GpuTest
  void shouldRunTheFirstBucketsAllReduceWhileBackwardIsStillRunning() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs");
    LocalRanks.Result r = run(2, "overlap");
    assertThat(r.exitCodes()).as(String.join("", r.outputs())).containsOnly(0);
  }
}
