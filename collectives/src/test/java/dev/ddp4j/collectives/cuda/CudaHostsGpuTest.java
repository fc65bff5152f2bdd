package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.GpuHarness;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.nccl.NcclLibrary;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A cuda group on two fake hosts of two ranks each ({@code DDP4J_HOST_ID}, {@code LOCAL_RANK} per
 * host): the hosts as the hierarchy's islands, their reduce-scatter and all-gather over IPC, the
 * column between them over NCCL ({@code DDP4J_INTER_HOST=nccl}, needs 2 GPUs: NCCL refuses two
 * ranks of one communicator on one GPU, so the second host sees the GPUs in the other order) or
 * over the sockets; the harness's correctness cases against its float64 reference.
 */
class CudaHostsGpuTest {

  private static LocalRanks.Result run(String interHost, int gpus) throws Exception {
    LocalRanks.Result r =
        LocalRanks.run(
            4,
            GpuHarness.class.getName(),
            List.of("check", "--quick", "--worker"),
            List.of("-Xmx3g", "-XX:MaxDirectMemorySize=2g"),
            Duration.ofMinutes(8),
            rank -> {
              Map<String, String> env = new HashMap<>();
              env.put("DDP4J_HOST_ID", "host" + rank / 2);
              env.put("LOCAL_RANK", Integer.toString(rank % 2));
              env.put("LOCAL_WORLD_SIZE", "2");
              env.put("DDP4J_INTER_HOST", interHost);
              env.put("DDP4J_SOCKET_IFNAME", "lo");
              env.put("DDP4J_DEBUG", "INFO");
              // Column j = local rank j of each host: on another GPU on the other host.
              env.put(
                  "CUDA_VISIBLE_DEVICES",
                  gpus >= 4 ? (rank < 2 ? "0,1" : "2,3") : (rank < 2 ? "0,1" : "1,0"));
              return env;
            });
    for (int i = 0; i < 4; i++) {
      System.out.println("---- " + interHost + " rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    return r;
  }

  private static void assertPassed(LocalRanks.Result r, String transport) {
    assertThat(r.allPassed()).isTrue();
    for (String out : r.outputs()) {
      assertThat(out).doesNotContain("FAIL").contains("PASS");
    }
    assertThat(r.outputs().get(0))
        .contains("Hierarchical column 0/2 : 0[0] -> 2[")
        .contains("via " + transport + " over NET")
        .contains("between hosts: hierarchical from")
        .contains("across them " + transport);
  }

  @GpuTest
  void shouldRunTheColumnBetweenHostsOverNccl() throws Exception {
    int gpus = CudaProbe.gpus().size();
    assumeTrue(gpus >= 2, "needs 2 GPUs: NCCL refuses two ranks of one communicator on one GPU");
    assumeTrue(
        NcclLibrary.unavailableReason().isEmpty(),
        () -> "needs NCCL: " + NcclLibrary.unavailableReason().orElse(""));
    assertPassed(run("nccl", gpus), "NET/NCCL");
  }

  @GpuTest
  void shouldRunTheColumnBetweenHostsOverTheSockets() throws Exception {
    int gpus = CudaProbe.gpus().size();
    assumeTrue(
        gpus >= 2,
        "needs 2 GPUs (on one GPU: bench/cuda-plan-mps.sh STEPS=hosts runs it under MPS)");
    assertPassed(run("socket", gpus), "NET/socket");
  }
}
