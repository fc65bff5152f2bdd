package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.CudaStallWorker;
import dev.ddp4j.testing.GpuTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The stall inspector on the cuda backend, 2 ranks on real GPUs: rank 1 sleeps 5 s before
 * all-reduce #2, and rank 0 (waiting on the GPU for #2) logs the line naming rank 1 within the
 * warning time, over IPC peer memory and over the host-staged path; then the job finishes.
 */
class CudaStallGpuTest {

  private static LocalRanks.Result run(Map<String, String> env) throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs");
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("DDP4J_STALL_WARN_SECONDS", "2");
    LocalRanks.Result r =
        LocalRanks.run(
            2,
            CudaStallWorker.class.getName(),
            List.of(),
            List.of("-Xmx2g"),
            Duration.ofMinutes(2),
            all);
    for (int i = 0; i < 2; i++) {
      System.out.println("---- stall " + env + " rank " + i + " exit " + r.exitCodes().get(i));
      System.out.print(r.outputs().get(i));
    }
    return r;
  }

  private static void assertNamesTheSleepingRank(LocalRanks.Result r) {
    assertThat(r.allPassed()).isTrue();
    assertThat(r.outputs().get(0))
        .contains("stall in cuda group 1: rank 1 has not called a collective for ")
        .contains("(last: allReduce #1; now at CudaStallWorker.main(CudaStallWorker.java:")
        .contains("; rank 0 has waited ")
        .contains(" in allReduce #2 (CudaStallWorker.main(CudaStallWorker.java:")
        .contains("stall in cuda group 1 over: allReduce(1024 FLOAT32, SUM) #2 finished after");
    assertThat(r.outputs().get(1)).doesNotContain("stall in");
  }

  @GpuTest
  void shouldNameTheSleepingRankOverPeerMemory() throws Exception {
    assertNamesTheSleepingRank(run(Map.of()));
  }

  @GpuTest
  void shouldNameTheSleepingRankOnTheStagedPath() throws Exception {
    assertNamesTheSleepingRank(run(Map.of("DDP4J_P2P_DISABLE", "1")));
  }
}
