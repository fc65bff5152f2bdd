package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.GpuHarness;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ring kernels on real GPUs (the cases are harness.AllReduceCheck's and CollectiveCheck's:
 * every op, dtype and size class against a float64 reference, outputs poisoned): forced on 2 ranks
 * (all-reduce, reduceScatter, allGather, broadcast), and chosen by the routing on 4 ranks whose
 * listed pairs have no peer access, where the route lines must show IPC on every ring hop and no
 * staging. Where the machine has fewer GPUs than ranks, the ranks share GPUs ({@code
 * DDP4J_CUDA_SHARE_GPUS=1}: IPC within one GPU), which checks the kernel and the routing but not
 * NVLink.
 */
class CudaRingGpuTest {

  private static LocalRanks.Result check(int ranks, Map<String, String> env, String... extra)
      throws Exception {
    int gpus = CudaProbe.gpus().size();
    assumeTrue(gpus >= 1, "needs a GPU");
    Map<String, String> all = new HashMap<>(env);
    if (gpus < ranks) {
      all.put("DDP4J_CUDA_SHARE_GPUS", "1");
    }
    List<String> args = new java.util.ArrayList<>(List.of("check", "--worker"));
    args.addAll(List.of(extra));
    LocalRanks.Result r =
        LocalRanks.run(
            ranks,
            GpuHarness.class.getName(),
            args,
            List.of("-Xmx3g", "-XX:MaxDirectMemorySize=3g"),
            Duration.ofMinutes(6),
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
  void shouldReduceEveryOpDtypeAndSizeWithTheRingForcedOnTwoRanks() throws Exception {
    // DDP4J_ALGO=ring also moves reduceScatter, allGather and broadcast onto their ring kernels.
    LocalRanks.Result r = check(2, Map.of("DDP4J_ALGO", "ring"), "--algos", "ring");
    assertThat(r.outputs().get(0))
        .contains("allReduce route direct")
        .contains("reduceScatter PRODUCT BFLOAT16")
        .contains("allGather FLOAT16")
        .contains("broadcast INT8")
        .contains("allReduce ring    SUM     FLOAT32          0 in-place")
        .contains("allReduce ring    PRODUCT BFLOAT16         7 out-of-place")
        .contains("allReduce ring    AVG     INT8          4097 out-of-place unaligned")
        .contains("allReduce ring    MIN     UINT8      1000003 in-place")
        .contains("allReduce ring    SUM     FLOAT32   67108864 out-of-place")
        .contains("allReduce ring    SUM     BFLOAT16 134217728 in-place");
  }

  /**
   * The plan's ring around {@code pairs}: every hop IPC, none of the pairs on it, nothing staged.
   */
  private static void assertRingAround(String pairs) throws Exception {
    LocalRanks.Result r =
        check(4, Map.of("DDP4J_P2P_DISABLE_PAIRS", pairs, "DDP4J_DEBUG", "INFO"), "--quick");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("allReduce route ring ([0-9-]+)")
            .matcher(r.outputs().get(0));
    assertThat(m.find()).as("rank 0 runs a ring").isTrue();
    String ring = m.group(1);
    String[] order = ring.split("-");
    for (int k = 0; k < 4; k++) {
      int me = Integer.parseInt(order[k]);
      int next = Integer.parseInt(order[(k + 1) % 4]);
      for (String pair : pairs.split(",")) {
        String[] ab = pair.split("-");
        assertThat(Set.of(me, next))
            .as("ring " + ring + " avoids " + pair)
            .isNotEqualTo(Set.of(Integer.parseInt(ab[0]), Integer.parseInt(ab[1])));
      }
      String out = r.outputs().get(me);
      assertThat(out)
          .contains("allReduce route ring " + ring)
          .contains("cuda route: ring " + ring)
          .containsPattern(
              "Channel 00/\\d+ : "
                  + me
                  + "\\["
                  + me
                  + "\\] -> "
                  + next
                  + "\\["
                  + next
                  + "\\] via P2P/IPC")
          .doesNotContainPattern("Channel \\d+/\\d+ : .* via SHM")
          .doesNotContain("host-staged");
    }
    // The other collectives ran on their ring kernels too (CollectiveCheck), nothing staged.
    assertThat(r.outputs().get(0))
        .contains("reduceScatter")
        .contains("broadcast")
        .contains("barrier x10");
  }

  @GpuTest
  void shouldRouteTheRingAroundOneDisabledPairOfFourRanks() throws Exception {
    assertRingAround("0-1");
  }

  @GpuTest
  void shouldRouteTheRingAroundTwoDisabledPairsOfFourRanks() throws Exception {
    assertRingAround("0-1,2-3");
  }
}
