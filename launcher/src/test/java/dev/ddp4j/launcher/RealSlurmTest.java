package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.store.StoreSecret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The launcher under a real Slurm: {@code src/test/slurm/slurm-job.sh} starts slurmctld and two
 * slurmd daemons (two nodes on this host, Debian's slurm-wlm) and runs {@code srun --nodes=2
 * --ntasks-per-node=1 java ... LauncherMain --nproc-per-node=2 BarrierWorker} with no node flags:
 * the launchers must learn the node count, their node rank and the master from Slurm alone; and a
 * worker failing on one node must end the job step non-zero, naming it, with no worker left.
 *
 * <p>Skipped, with the reason, when not root or when slurm-wlm is not installed; {@code
 * scripts/test.sh} (the README's test command, which CI runs) installs it where it can, and stops
 * under {@code REQUIRE_TOOLS=1} when it cannot. With slurm-wlm installed, daemons that do not start
 * fail the test with their logs.
 */
class RealSlurmTest {

  private static final Path SCRIPT = Path.of("src/test/slurm/slurm-job.sh");

  @Test
  void srunOfTwoLaunchersOnTwoSlurmNodesShouldFormOneJobOfFourRanks() throws Exception {
    Job job = srun("BarrierWorker");
    assertThat(job.exitCode).as(job.output).isZero();
    for (int r = 0; r < 4; r++) {
      assertThat(job.output)
          .contains("[rank" + r + "]:passed barrier")
          .contains(
              "[rank" + r + "]:rank=" + r + " world=4 local=" + (r % 2) + "/2 group=" + (r / 2));
    }
    assertThat(job.output).contains("(hosting the store)");
  }

  @Test
  void aWorkerFailingUnderSrunShouldEndTheStepNonZeroNamingItAndLeaveNoWorker() throws Exception {
    Job job = srun("ExitWorker", "3", "7");
    assertThat(job.exitCode).as(job.output).isNotZero();
    assertThat(job.output).contains("root cause rank 3").contains("exit code 7");
    List<Long> pids = new ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("pid=(\\d+)").matcher(job.output);
    while (m.find()) {
      pids.add(Long.parseLong(m.group(1)));
    }
    assertThat(pids).hasSize(4);
    assertThat(LauncherRun.allDead(pids)).isTrue();
  }

  private record Job(int exitCode, String output) {}

  /** Runs slurm-job.sh: two Slurm nodes, one launcher per node, 2 workers each, no node flags. */
  private static Job srun(String... program) throws Exception {
    String user = System.getProperty("user.name");
    Assumptions.assumeTrue(
        "root".equals(user), "needs root to start slurmctld and slurmd (running as " + user + ")");
    Assumptions.assumeTrue(
        onPath("srun") && onPath("slurmctld") && onPath("slurmd"),
        "slurm-wlm is not installed (scripts/test.sh installs it as root with apt-get;"
            + " or apt-get install -y slurm-wlm)");
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(LauncherRun.FAST_JVM);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(LauncherMain.class.getName());
    for (String j : LauncherRun.FAST_JVM) {
      cmd.add("--jvm-arg=" + j);
    }
    cmd.addAll(List.of("--nproc-per-node=2", "--master-port=" + MultiNodeTest.freePort()));
    cmd.addAll(List.of(program));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Path out = Files.createTempFile("ddp4j-slurm", ".log");
    pb.redirectOutput(out.toFile());
    Map<String, String> env = pb.environment();
    env.put(StoreSecret.SECRET_VAR, "real-slurm-test");
    env.put("NODES", "2");
    env.put("CTLD_PORT", Integer.toString(MultiNodeTest.freePort()));
    env.put("SLURMD_PORT", Integer.toString(freePortPair()));
    env.remove("OMP_NUM_THREADS");
    Process p = pb.start();
    try {
      boolean ended = p.waitFor(100, TimeUnit.SECONDS);
      String output = Files.readString(out);
      assertThat(ended).as("slurm-job.sh still running after 100 s; output:\n" + output).isTrue();
      return new Job(p.exitValue(), output);
    } finally {
      // SIGTERM: the script's trap stops the daemons (and srun its tasks).
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      Files.deleteIfExists(out);
    }
  }

  private static boolean onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", program));
  }

  /** The first of two consecutive free ports (one per slurmd). */
  private static int freePortPair() throws IOException {
    for (int i = 0; i < 50; i++) {
      int port = MultiNodeTest.freePort();
      if (port < 65535 && portFree(port + 1)) {
        return port;
      }
    }
    throw new IOException("found no two consecutive free ports for the slurmd daemons");
  }

  private static boolean portFree(int port) {
    try (java.net.ServerSocket s = new java.net.ServerSocket(port)) {
      return s.isBound();
    } catch (IOException e) {
      return false;
    }
  }
}
