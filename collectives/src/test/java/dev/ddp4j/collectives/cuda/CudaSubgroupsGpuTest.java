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

/**
 * Subgroups of a cuda group on real GPUs (harness SubgroupCheck, 4 ranks; where the machine has
 * fewer GPUs they share them under {@code DDP4J_CUDA_SHARE_GPUS=1}, run under MPS): split by parity
 * and a newGroup of three with a nested pair, each a cuda group of its own members (its own plan,
 * scratch and route lines) with its own host half, device and host all-reduces against their
 * members' sums, the parent usable after a subgroup closed, and closing the parent closing them.
 */
class CudaSubgroupsGpuTest {

  @GpuTest
  void shouldRunSplitNewGroupAndNestedSubgroupsOfFourRanks() throws Exception {
    int gpus = CudaProbe.gpus().size();
    assumeTrue(gpus >= 1, "needs a GPU");
    int ranks = 4;
    Map<String, String> env = new HashMap<>(Map.of("DDP4J_DEBUG", "INFO"));
    if (gpus < ranks) {
      env.put("DDP4J_CUDA_SHARE_GPUS", "1");
      env.put("DDP4J_MAX_NCHANNELS", "16");
    }
    LocalRanks.Result r =
        LocalRanks.run(
            ranks,
            GpuHarness.class.getName(),
            List.of("subgroups", "--worker"),
            List.of("-Xmx2g", "-XX:MaxDirectMemorySize=2g"),
            Duration.ofMinutes(4),
            env);
    for (int i = 0; i < ranks; i++) {
      System.out.println("---- rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    for (int i = 0; i < ranks; i++) {
      String out = r.outputs().get(i);
      assertThat(out)
          .contains("# rank " + i + ": subgroups, 0 failed")
          .contains("# rank " + i + ": split half rank " + i / 2 + "/2, route ")
          .contains("plan of 2 ranks")
          .doesNotContain("FAIL");
    }
    assertThat(r.outputs().get(2)).contains("subgroup sub0: rank 1/2, ranks [0, 2] of this group");
    // Parent rank 3 is rank 0 of the three and of the nested pair {3, 2}, whose ring is its own.
    assertThat(r.outputs().get(3))
        .contains("ok   newGroup rank = 0")
        .contains("ok   nested device = 7")
        .containsPattern("Channel 00/\\d+ : 0\\[\\d\\] -> 1\\[\\d\\] via P2P/IPC");
    assertThat(r.allPassed()).isTrue();
  }
}
