package dev.ddp4j.collectives.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.GpuHarness;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;

/**
 * The nccl backend on real GPUs with the machine's NCCL, one JVM per GPU (GpuHarness with {@code
 * --backend nccl}): every collective, dtype and op against the float64 reference on one rank (NCCL
 * refuses two ranks on one GPU) and on two GPUs where there are two, a stuck collective aborted
 * after the group's timeout, and a skipped collective named; point-to-point (pair communicators)
 * and the grouped gather, scatter and all-to-all (harness.P2pCheck) on one rank, and across two
 * GPUs where there are two.
 */
public class NcclGpuTest {

  @BeforeEach
  void needsNccl() {
    assumeTrue(
        NcclLibrary.unavailableReason().isEmpty(),
        () -> "needs NCCL: " + NcclLibrary.unavailableReason().orElse(""));
  }

  private static LocalRanks.Result harness(int ranks, String mode, Map<String, String> env)
      throws Exception {
    LocalRanks.Result r =
        LocalRanks.run(
            ranks,
            GpuHarness.class.getName(),
            List.of(mode, "--backend", "nccl", "--worker"),
            List.of("-Xmx4g", "-XX:MaxDirectMemorySize=6g"),
            Duration.ofMinutes(8),
            env);
    for (int i = 0; i < ranks; i++) {
      System.out.println("---- rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    return r;
  }

  @GpuTest
  void shouldRunEveryCollectiveDtypeAndOpOnOneRank() throws Exception {
    LocalRanks.Result r = harness(1, "check", Map.of());
    assertThat(r.outputs().get(0))
        .contains(" 0 failed")
        .doesNotContain("FAIL")
        .contains("allReduce auto    AVG     BFLOAT16")
        .contains("reduceScatter PRODUCT INT8")
        .contains("allGather UINT8")
        .contains("broadcast FLOAT16")
        .contains("barrier x10");
    assertThat(r.allPassed()).isTrue();
  }

  /**
   * Subgroups of an nccl group (harness SubgroupCheck): each a communicator of its members ({@code
   * NcclProcessGroup.subGroup}) with its own host half. One rank on one GPU (NCCL refuses two),
   * split and newGroup of itself; on two GPUs each parity half alone and rank 0 left out of the
   * newGroup.
   */
  @GpuTest
  void shouldMakeSubgroupsOfTheGpusRanks() throws Exception {
    int ranks = Math.min(2, CudaProbe.gpus().size());
    LocalRanks.Result r = harness(ranks, "subgroups", Map.of());
    for (int i = 0; i < ranks; i++) {
      assertThat(r.outputs().get(i))
          .contains("# rank " + i + ": subgroups, 0 failed")
          .contains("ok   split device 1048576")
          .doesNotContain("FAIL");
    }
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldRunReduceGatherScatterAndAllToAllOnOneRank() throws Exception {
    LocalRanks.Result r = harness(1, "p2p-check", Map.of());
    assertThat(r.outputs().get(0))
        .contains(" 0 failed")
        .doesNotContain("FAIL")
        .contains("reduce SUM  FLOAT32")
        .contains("gather BFLOAT16")
        .contains("scatter INT64")
        .contains("allToAll UINT8");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldSendReceiveAndRunTheRootedCollectivesAcrossTwoGpus() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs (NCCL refuses two ranks on one GPU)");
    LocalRanks.Result r = harness(2, "p2p-check", Map.of());
    for (String out : r.outputs()) {
      assertThat(out).contains(" 0 failed").doesNotContain("FAIL");
    }
    assertThat(r.outputs().get(0))
        .contains("both isend first")
        .contains("isend/irecv of different shapes");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldAbortAStuckCollectiveAfterTheGroupsTimeout() throws Exception {
    LocalRanks.Result r = harness(1, "stuck", Map.of("DDP4J_TIMEOUT_SECONDS", "5"));
    assertThat(r.outputs().get(0)).doesNotContain("FAIL").contains("ncclCommAbort");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldRunEveryCollectiveAcrossTwoGpus() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs (NCCL refuses two ranks on one GPU)");
    LocalRanks.Result r = harness(2, "check", Map.of());
    for (String out : r.outputs()) {
      assertThat(out).contains(" 0 failed").doesNotContain("FAIL");
    }
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldNameTheRankThatSkippedACollective() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs (NCCL refuses two ranks on one GPU)");
    LocalRanks.Result r = harness(2, "missing", Map.of("DDP4J_TIMEOUT_SECONDS", "8"));
    assertThat(r.outputs().get(0)).contains("ranks [1] never called it").doesNotContain("FAIL");
    assertThat(r.exitCodes().get(0)).isZero();
  }
}
