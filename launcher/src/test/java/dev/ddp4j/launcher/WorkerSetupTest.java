package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.InitMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Worker command lines, environments, NUMA binding and exit descriptions. */
class WorkerSetupTest {

  @TempDir Path tmp;

  private LaunchConfig config(int nproc, int[] numa) {
    return new LaunchConfig(
        nproc,
        1,
        0,
        StoreAddress.tcp("127.0.0.1", 0),
        false,
        "sec",
        0,
        Duration.ofMillis(100),
        null,
        new OutputMode(0, 0),
        Set.of(),
        new ProgramResolver.Program("a.Main", List.of("/x.jar")),
        List.of("p1"),
        List.of("-Xmx1g"),
        numa,
        Duration.ofSeconds(300),
        GpuPlacement.unchanged(null));
  }

  @Test
  void environmentShouldCarryRanksStoreSecretAndOmpRule() {
    Map<String, String> env = new HashMap<>(Map.of("DDP4J_STORE_SECRET_FILE", "/old"));
    WorkerSpec s = new WorkerSpec(5, 1, 8, 4, 1, 2);
    WorkerCommand.environment(env, config(4, new int[4]), s, InitMethod.tcp("10.0.0.5", 29500));
    assertThat(env)
        .containsEntry("RANK", "5")
        .containsEntry("LOCAL_RANK", "1")
        .containsEntry("WORLD_SIZE", "8")
        .containsEntry("LOCAL_WORLD_SIZE", "4")
        .containsEntry("GROUP_RANK", "1")
        .containsEntry("DDP4J_RESTART_COUNT", "2")
        .containsEntry("MASTER_ADDR", "10.0.0.5")
        .containsEntry("MASTER_PORT", "29500")
        .containsEntry("DDP4J_INIT_METHOD", "env://")
        .containsEntry("DDP4J_STORE_SECRET", "sec")
        .containsEntry("OMP_NUM_THREADS", "1")
        .containsEntry("DDP4J_LAUNCHER_PID", Long.toString(ProcessHandle.current().pid()))
        .doesNotContainKey("DDP4J_STORE_SECRET_FILE");
  }

  @Test
  void ompNumThreadsShouldBeOneForEveryWorkerCountUnlessTheUserSetIt() {
    Map<String, String> env = new HashMap<>(Map.of("OMP_NUM_THREADS", "8"));
    WorkerCommand.environment(
        env, config(4, new int[4]), new WorkerSpec(0, 0, 4, 4, 0, 0), InitMethod.tcp("h", 1));
    assertThat(env).containsEntry("OMP_NUM_THREADS", "8");
    Map<String, String> single = new HashMap<>();
    WorkerCommand.environment(
        single, config(1, new int[1]), new WorkerSpec(0, 0, 1, 1, 0, 0), InitMethod.tcp("h", 1));
    assertThat(single).containsEntry("OMP_NUM_THREADS", "1");
  }

  @Test
  void fileInitShouldReachWorkersAsTheirInitMethod() {
    Map<String, String> env = new HashMap<>();
    WorkerCommand.environment(
        env,
        config(1, new int[1]),
        new WorkerSpec(0, 0, 1, 1, 0, 0),
        InitMethod.parse("file:///shared/rdzv"));
    assertThat(env)
        .containsEntry("DDP4J_INIT_METHOD", "file:///shared/rdzv")
        .doesNotContainKey("MASTER_ADDR");
  }

  @Test
  void argvShouldRunTheBootstrapUnderNumactlWhenTheNodeIsKnown() throws Exception {
    Path numactl = tmp.resolve("numactl");
    Files.writeString(numactl, "#!/bin/sh\n");
    numactl.toFile().setExecutable(true);
    assertThat(NumaBinding.findNumactl("/nonexistent:" + tmp)).contains(numactl);
    List<String> argv =
        WorkerCommand.argv(
            config(2, new int[] {-1, 1}), new WorkerSpec(1, 1, 2, 2, 0, 0), Optional.of(numactl));
    assertThat(argv.subList(0, 3))
        .containsExactly(numactl.toString(), "--cpunodebind=1", "--membind=1");
    assertThat(argv.subList(3, argv.size()))
        .containsExactly(
            WorkerCommand.javaBinary(),
            "--add-modules",
            "jdk.incubator.vector",
            "-Xmx1g",
            "-cp",
            "/x.jar",
            WorkerBootstrap.class.getName(),
            "a.Main",
            "p1");
    List<String> unbound =
        WorkerCommand.argv(
            config(2, new int[] {-1, 1}), new WorkerSpec(0, 0, 2, 2, 0, 0), Optional.of(numactl));
    assertThat(unbound.get(0)).isEqualTo(WorkerCommand.javaBinary());
  }

  @Test
  void numaNodeShouldComeFromSysfsAndBeMinusOneWhenUnknown() throws Exception {
    Path dev = tmp.resolve("bus/pci/devices/0000:18:00.0");
    Files.createDirectories(dev);
    Files.writeString(dev.resolve("numa_node"), "1\n");
    assertThat(NumaBinding.numaNodeOf(tmp, "0000:18:00.0")).isEqualTo(1);
    assertThat(NumaBinding.numaNodeOf(tmp, "0000:3B:00.0")).isEqualTo(-1);
  }

  @Test
  void exitStatusShouldNameSignals() {
    assertThat(ExitStatus.describe(3)).isEqualTo("exit code 3");
    assertThat(ExitStatus.describe(137)).isEqualTo("exit code 137 (killed by signal 9, SIGKILL)");
    assertThat(ExitStatus.describe(139)).contains("SIGSEGV");
  }

  @Test
  void workersShouldGetTheVectorModuleUnlessTurnedOffOrUnavailable() {
    List<String> add = List.of("--add-modules", "jdk.incubator.vector");
    assertThat(WorkerCommand.workerJvmOptions(dev.ddp4j.spi.Settings.empty(), 17, true))
        .isEqualTo(add);
    assertThat(
            WorkerCommand.workerJvmOptions(
                dev.ddp4j.spi.Settings.of(Map.of("DDP4J_CPU_VECTOR", "1")), 17, true))
        .isEqualTo(add);
    assertThat(
            WorkerCommand.workerJvmOptions(
                dev.ddp4j.spi.Settings.of(Map.of("DDP4J_CPU_VECTOR", "0")), 17, true))
        .isEmpty();
    assertThat(WorkerCommand.workerJvmOptions(dev.ddp4j.spi.Settings.empty(), 17, false)).isEmpty();
    assertThat(WorkerCommand.workerJvmOptions(dev.ddp4j.spi.Settings.empty(), 21, true)).isEmpty();
  }
}
