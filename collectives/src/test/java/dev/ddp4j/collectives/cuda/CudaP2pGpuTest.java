package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.GpuHarness;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Point-to-point, reduce, gather, scatter and all-to-all of device buffers on real GPUs (the cases
 * are harness.P2pCheck's: sizes up to 64 MiB through the 1 MiB mailbox slots, ranks that both send
 * before they receive, receives posted first, per-pair order and numbers, a shape mismatch named on
 * both ranks, reduce against a float64 reference): over the copy-engine mailbox where every pair
 * has peer access (2 and 3 ranks), made of the ring collectives where a pair has none (4 ranks,
 * where isend must refuse naming what works), and host-staged under {@code DDP4J_P2P_DISABLE=1}
 * (rooted collectives through the staged path; device isend refused likewise). Where the machine
 * has fewer GPUs than ranks, the ranks share GPUs ({@code DDP4J_CUDA_SHARE_GPUS=1}, under CUDA
 * MPS): the protocol runs for real, NVLink does not.
 */
class CudaP2pGpuTest {

  private static LocalRanks.Result run(int ranks, Map<String, String> env, String... extra)
      throws Exception {
    int gpus = CudaProbe.gpus().size();
    assumeTrue(gpus >= 1, "needs a GPU");
    Map<String, String> all = new HashMap<>(env);
    if (gpus < ranks) {
      all.put("DDP4J_CUDA_SHARE_GPUS", "1");
    }
    List<String> args = new ArrayList<>(List.of("p2p-check", "--worker"));
    args.addAll(List.of(extra));
    LocalRanks.Result r =
        LocalRanks.run(
            ranks,
            GpuHarness.class.getName(),
            args,
            List.of("-Xmx2g", "-XX:MaxDirectMemorySize=2g"),
            Duration.ofMinutes(5),
            all);
    for (int i = 0; i < ranks; i++) {
      System.out.println("---- " + all + " rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    for (String out : r.outputs()) {
      assertThat(out).contains(" 0 failed").doesNotContain("FAIL");
    }
    assertThat(r.allPassed()).isTrue();
    return r;
  }

  @GpuTest
  void shouldMoveMessagesAndRootedCollectivesOverTheMailboxOnTwoRanks() throws Exception {
    LocalRanks.Result r = run(2, Map.of());
    assertThat(r.outputs().get(0))
        .contains("on route direct")
        .contains("isend/irecv ring FLOAT32   16777216")
        .contains("both isend first     FLOAT32    8388608")
        .contains("both irecv first     INT32")
        .contains("isend x5 in order")
        .contains("isend/irecv of different shapes")
        .contains("10 FLOAT32")
        .contains("12 FLOAT32")
        .contains("reduce MAX  BFLOAT16")
        .containsPattern("gather FLOAT32 +4097 root 1 in-place +PASS")
        .contains("scatter INT64")
        .contains("allToAll UINT8");
  }

  @GpuTest
  void shouldRunThemOnThreeRanksToo() throws Exception {
    LocalRanks.Result r = run(3, Map.of());
    assertThat(r.outputs().get(0)).contains("on route direct").contains("allToAll FLOAT32");
  }

  @GpuTest
  void shouldMakeRootedCollectivesOfTheRingAndRefuseP2pWhereAPairHasNoPeerPath() throws Exception {
    LocalRanks.Result r = run(4, Map.of("DDP4J_P2P_DISABLE_PAIRS", "0-1"), "--no-p2p");
    assertThat(r.outputs().get(0))
        .contains("on route ring")
        .contains("isend refused without peer memory")
        .contains("allToAll INT64");
  }

  @GpuTest
  void shouldStageRootedCollectivesAndRefuseDeviceP2pUnderP2pDisable() throws Exception {
    // One host: the ring's hops through host memory (DDP4J_P2P_DISABLE=1 leaves no peer path).
    LocalRanks.Result r = run(2, Map.of("DDP4J_P2P_DISABLE", "1"), "--no-p2p");
    assertThat(r.outputs().get(0))
        .contains("on route ring 0-1 (0->1, 1->0 via host memory)")
        .contains("isend refused without peer memory")
        .contains("scatter BFLOAT16");
  }
}
