package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The launcher applying the topology's GPU order, with topologies given through DDP4J_TOPO_FILE
 * (this machine has no GPU).
 */
class GpuPlacementTest {

  private static final String DGX1 =
      Path.of("src/test/resources/topology/dgx1-v100-hybrid-cube-mesh.xml")
          .toAbsolutePath()
          .toString();
  private static final String A100_PAIRS =
      Path.of("src/test/resources/topology/a100-4gpu-nvlink-pairs.txt").toAbsolutePath().toString();

  private static Map<String, String> topo(String file, String... more) {
    Map<String, String> env = new HashMap<>(Map.of("DDP4J_TOPO_FILE", file));
    for (int i = 0; i < more.length; i += 2) {
      env.put(more[i], more[i + 1]);
    }
    return env;
  }

  @Test
  void shouldOrderTheGpusAlongTheBestRingOfTheTopology() {
    GpuPlacement p = GpuPlacement.choose(8, false, dev.ddp4j.spi.Settings.of(topo(DGX1)), false);
    assertThat(p.cudaVisibleDevices()).isEqualTo("0,3,2,1,5,6,7,4");
    assertThat(p.ordinals()).containsExactly(0, 3, 2, 1, 5, 6, 7, 4);
    assertThat(p.note()).contains("on GPUs 0,3,2,1,5,6,7,4").contains("DDP4J_GPU_ORDER=0");
  }

  @Test
  void shouldLeaveTheIdentityOrderAndTheUsersChoiceAlone() {
    GpuPlacement identity =
        GpuPlacement.choose(4, false, dev.ddp4j.spi.Settings.of(topo(A100_PAIRS)), false);
    assertThat(identity.cudaVisibleDevices()).isNull();
    assertThat(identity.note()).contains("0,1,2,3 (the identity is already the best ring)");

    GpuPlacement user =
        GpuPlacement.choose(
            8, false, dev.ddp4j.spi.Settings.of(topo(DGX1, "CUDA_VISIBLE_DEVICES", "7,6")), false);
    assertThat(user.cudaVisibleDevices()).isNull();
    assertThat(user.note()).contains("CUDA_VISIBLE_DEVICES=7,6 was set by the user");

    assertThat(GpuPlacement.choose(2, false, dev.ddp4j.spi.Settings.empty(), false))
        .as("no GPU and no topology file: nothing to say")
        .isEqualTo(GpuPlacement.unchanged(null));
  }

  @Test
  void shouldBeSwitchedOffByTheFlagOrTheVariable() {
    GpuPlacement flag = GpuPlacement.choose(8, true, dev.ddp4j.spi.Settings.of(topo(DGX1)), false);
    assertThat(flag.cudaVisibleDevices()).isNull();
    assertThat(flag.note()).contains("off (--no-gpu-order)");
    GpuPlacement var =
        GpuPlacement.choose(
            8, false, dev.ddp4j.spi.Settings.of(topo(DGX1, "DDP4J_GPU_ORDER", "0")), false);
    assertThat(var.cudaVisibleDevices()).isNull();
    assertThat(var.note()).contains("off (DDP4J_GPU_ORDER=0)");
    assertThatThrownBy(
            () ->
                GpuPlacement.choose(
                    8,
                    false,
                    dev.ddp4j.spi.Settings.of(topo(DGX1, "DDP4J_GPU_ORDER", "yes")),
                    false))
        .isInstanceOf(dev.ddp4j.ConfigException.class)
        .hasMessageContaining("DDP4J_GPU_ORDER=yes (expected: 1");
  }

  @Test
  void workersShouldGetTheReorderedDevicesAndTheLauncherShouldLogTheOrder() throws Exception {
    try (LauncherRun run =
        LauncherRun.start(Map.of("DDP4J_TOPO_FILE", DGX1), "--nproc-per-node=2", "EnvWorker")) {
      assertThat(run.exitCode(Duration.ofSeconds(60))).as(run.output()).isZero();
      assertThat(run.lines)
          .contains("[rank0]:local=0 CUDA_VISIBLE_DEVICES=0,3")
          .contains("[rank1]:local=1 CUDA_VISIBLE_DEVICES=0,3")
          .contains(
              "[launcher] GPU order: local ranks 0..1 on GPUs 0,3 (best ring; CUDA_VISIBLE_DEVICES=0,3"
                  + " for every worker; --no-gpu-order or DDP4J_GPU_ORDER=0 keeps 0,1,2,...)");
    }
  }
}
