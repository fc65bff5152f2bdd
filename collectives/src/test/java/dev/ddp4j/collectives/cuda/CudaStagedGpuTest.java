package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.GpuHarness;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The host-staged path on real GPUs, 2 ranks (the cases are in harness.StagedCheck: every op, a few
 * dtypes, sizes 0, 1, odd, several chunks and 256 MiB against a float64 reference, outputs
 * poisoned, and the stream contract): forced for every pair, for one listed pair, and between two
 * ranks that look like two hosts (sockets); plus a timeout that names the rank that never came.
 */
class CudaStagedGpuTest {

  private static LocalRanks.Result run(String mode, Map<String, String> env, String... extra)
      throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs");
    List<String> args = new java.util.ArrayList<>(List.of(mode, "--worker"));
    args.addAll(List.of(extra));
    LocalRanks.Result r =
        LocalRanks.run(
            2,
            GpuHarness.class.getName(),
            args,
            List.of("-Xmx3g", "-XX:MaxDirectMemorySize=2g"),
            Duration.ofMinutes(6),
            env);
    for (int i = 0; i < 2; i++) {
      System.out.println(
          "---- " + mode + " " + env + " rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    return r;
  }

  private static void assertAllPassed(LocalRanks.Result r) {
    for (String out : r.outputs()) {
      assertThat(out).contains(" 0 failed").doesNotContain("FAIL");
    }
    assertThat(r.outputs().get(0)).contains("reduceScatter").contains("stream order");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldStageEveryOpThroughSharedMemoryUnderP2pDisable() throws Exception {
    LocalRanks.Result r =
        run("staged-check", Map.of("DDP4J_P2P_DISABLE", "1", "DDP4J_DEBUG", "INFO"), "--large");
    assertAllPassed(r);
    assertThat(r.outputs().get(0))
        .contains(
            "0[0] -> 1[1] via SHM/staged over PCI (device <-> pinned host memory; no peer access"
                + " on NV18)")
        .contains("have no peer path (DDP4J_P2P_DISABLE=1)")
        .contains("via host memory");
  }

  @GpuTest
  void shouldStageTheListedPairWithSmallChunksSoEveryCallIsPipelined() throws Exception {
    LocalRanks.Result r =
        run(
            "staged-check",
            Map.of(
                "DDP4J_P2P_DISABLE_PAIRS", "1-0",
                "DDP4J_CUDA_STAGED_CHUNK_KIB", "256",
                "DDP4J_DEBUG", "INFO"));
    assertAllPassed(r);
    assertThat(r.outputs().get(1))
        .contains("1[1] -> 0[0] via SHM/staged over PCI")
        .contains("have no peer path (DDP4J_P2P_DISABLE_PAIRS lists 0-1)")
        .contains("ring 0-1 (0->1, 1->0 via host memory)");
  }

  @GpuTest
  void shouldGoThroughSocketsBetweenRanksThatLookLikeTwoHosts() throws Exception {
    LocalRanks.Result r =
        run(
            "staged-check",
            Map.of(
                "DDP4J_HOST_ID", "host{rank}", "DDP4J_SOCKET_IFNAME", "lo", "DDP4J_DEBUG", "INFO"));
    assertAllPassed(r);
    assertThat(r.outputs().get(0))
        .contains("0[0] -> 1[1] via NET/Socket over NET")
        .contains("have no peer path (other host)");
  }

  @GpuTest
  void shouldNameTheRankThatNeverCameWhenAStagedCollectiveTimesOut() throws Exception {
    LocalRanks.Result r =
        run("staged-missing", Map.of("DDP4J_P2P_DISABLE", "1", "DDP4J_TIMEOUT_SECONDS", "5"));
    assertThat(r.outputs().get(0)).contains("missing rank: PASS");
    assertThat(r.allPassed()).isTrue();
  }

  @GpuTest
  void shouldLogP2pRoutesOverNvlinkWhenEveryPairHasPeerAccess() throws Exception {
    LocalRanks.Result r = run("routes", Map.of("DDP4J_DEBUG", "INFO"));
    assertThat(r.allPassed()).isTrue();
    assertThat(r.outputs().get(0))
        .containsPattern(
            "Channel 00/\\d+ : 0\\[0\\] -> 1\\[1\\] via P2P/IPC over NVL \\(NV\\d+, \\d+ GB/s\\)");
    assertThat(r.outputs().get(1))
        .containsPattern("Channel 00/\\d+ : 1\\[1\\] -> 0\\[0\\] via P2P/IPC over NVL")
        .contains("all-reduce by size: ll 8 B-256 KiB, oneshot 512 KiB-4 GiB");
  }

  @GpuTest
  void shouldStageEveryOpWithOneLaneToo() throws Exception {
    assertAllPassed(
        run(
            "staged-check",
            Map.of(
                "DDP4J_P2P_DISABLE",
                "1",
                "DDP4J_CUDA_STAGED_LANES",
                "1",
                "DDP4J_CUDA_STAGED_CHUNK_KIB",
                "1024")));
  }

  @GpuTest
  void shouldRefuseRanksThatDisagreeOnPeerAccessNamingBothSettings() throws Exception {
    LocalRanks.Result r = run("routes", Map.of("DDP4J_P2P_DISABLE", "{rank}"));
    assertThat(r.exitCodes()).doesNotContain(0);
    assertThat(r.outputs().get(0))
        .contains("rank 1 runs with DDP4J_P2P_DISABLE=1")
        .contains("but rank 0 with DDP4J_P2P_DISABLE=0");
  }

  @GpuTest
  void shouldExitWithTheAcceptedFormOnABadPairList() throws Exception {
    LocalRanks.Result r = run("staged-check", Map.of("DDP4J_P2P_DISABLE_PAIRS", "0-x"));
    assertThat(r.exitCodes()).doesNotContain(0);
    assertThat(r.outputs().get(0)).contains("DDP4J_P2P_DISABLE_PAIRS=0-x").contains("e.g. 0-1,2-3");
  }
}
