package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmJobTest {

  private static Map<String, String> srun(String nodes, int nnodes, int nodeId) {
    Map<String, String> env = new HashMap<>();
    env.put("SLURM_JOB_ID", "4242");
    env.put("SLURM_NNODES", Integer.toString(nnodes));
    env.put("SLURM_NTASKS", Integer.toString(nnodes));
    env.put("SLURM_NODEID", Integer.toString(nodeId));
    env.put("SLURM_PROCID", Integer.toString(nodeId));
    env.put("SLURM_JOB_NODELIST", nodes);
    return env;
  }

  private static LaunchCommand parse(String... args) {
    picocli.CommandLine cl = LaunchCommand.commandLine();
    cl.parseArgs(args);
    return cl.getCommand();
  }

  @Test
  void shouldExpandSlurmHostListsKeepingZeroPadding() {
    assertThat(SlurmHostList.expand("gpu[01-03,07],login1"))
        .containsExactly("gpu01", "gpu02", "gpu03", "gpu07", "login1");
    assertThat(SlurmHostList.expand("r[1-2]-n[3-4]"))
        .containsExactly("r1-n3", "r1-n4", "r2-n3", "r2-n4");
    assertThat(SlurmHostList.expand("node7")).containsExactly("node7");
    assertThatThrownBy(() -> SlurmHostList.expand("gpu[01-03"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("unclosed '['");
    assertThatThrownBy(() -> SlurmHostList.expand("gpu[a-b]"))
        .hasMessageContaining("the range 'a-b'");
  }

  @Test
  void shouldTakeNodesRankAndMasterFromSlurmUnlessFlagsSayOtherwise() throws Exception {
    SlurmJob job = SlurmJob.from(dev.ddp4j.spi.Settings.of(srun("dgx[3-4]", 2, 1))).orElseThrow();
    assertThat(job).isEqualTo(new SlurmJob(2, 1, "dgx3"));

    LaunchCommand defaults = parse("BarrierWorker");
    job.applyTo(defaults);
    assertThat(defaults.nnodes).isEqualTo("2");
    assertThat(defaults.nodeRank).isEqualTo(1);
    assertThat(defaults.masterAddr).isEqualTo("dgx3");

    LaunchCommand explicit = parse("--master-addr=10.0.0.5", "--node-rank=0", "BarrierWorker");
    job.applyTo(explicit);
    assertThat(explicit.masterAddr).isEqualTo("10.0.0.5");
    assertThat(explicit.nodeRank).isZero();
    assertThat(explicit.nnodes).isEqualTo("2");
  }

  @Test
  void shouldIgnoreAnEnvironmentWithoutAJobAndRefuseSeveralTasksPerNode() {
    assertThat(SlurmJob.from(dev.ddp4j.spi.Settings.empty())).isEmpty();
    Map<String, String> env = srun("n[1-2]", 2, 0);
    env.put("SLURM_NTASKS", "16");
    assertThatThrownBy(() -> SlurmJob.from(dev.ddp4j.spi.Settings.of(env)))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("srun --ntasks-per-node=1");
    Map<String, String> wrongCount = srun("n[1-3]", 2, 0);
    assertThatThrownBy(() -> SlurmJob.from(dev.ddp4j.spi.Settings.of(wrongCount)))
        .hasMessageContaining("names 3 hosts but SLURM_NNODES=2");
  }

  @Test
  void twoLaunchersUnderSlurmsEnvironmentShouldFormOneJobWithoutNodeFlags() throws Exception {
    int port = MultiNodeTest.freePort();
    Map<String, String> a = srun("127.0.0.1,127.0.0.1", 2, 0);
    Map<String, String> b = srun("127.0.0.1,127.0.0.1", 2, 1);
    a.put(dev.ddp4j.collectives.store.StoreSecret.SECRET_VAR, "slurm-test");
    b.put(dev.ddp4j.collectives.store.StoreSecret.SECRET_VAR, "slurm-test");
    String[] args = {"--nproc-per-node=1", "--master-port=" + port, "BarrierWorker"};
    try (LauncherRun node0 = LauncherRun.start(a, args);
        LauncherRun node1 = LauncherRun.start(b, args)) {
      assertThat(node0.exitCode(java.time.Duration.ofSeconds(90))).as(node0.output()).isZero();
      assertThat(node1.exitCode(java.time.Duration.ofSeconds(90))).as(node1.output()).isZero();
      assertThat(node0.output())
          .contains("[rank0]:rank=0 world=2")
          .contains("[rank0]:passed barrier");
      assertThat(node1.output()).contains("[rank1]:rank=1 world=2").contains("group=1");
    }
  }
}
