package dev.ddp4j.runtime.nd4jcuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.Ddp;
import dev.ddp4j.InitOptions;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.CommHooks;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * How DdpModel hands arrays to collectives on the CPU backend this build tests with: host memory in
 * place, the configured hook unchanged, and no ND4J CUDA class anywhere near the classpath.
 */
class Nd4jDevicesTest {

  private static ProcessGroup oneRankGroup(Path dir) {
    return Ddp.init(
        InitOptions.fromEnvironment(Map.of())
            .withInitMethod(dir.resolve("store").toUri().toString())
            .withRank(0, 1)
            .withBackend("cpu"));
  }

  @Test
  void shouldKeepTheConfiguredHookAndHostBuffersOnTheCpuBackend(@TempDir Path dir) {
    try (ProcessGroup group = oneRankGroup(dir)) {
      NdCollectives c = NdCollectives.of(group);
      CommHook hook = CommHooks.fp16Compress();
      assertThat(c.onDevice()).isFalse();
      assertThat(c.hook(hook)).isSameAs(hook);
      INDArray x = Nd4j.createFromArray(1f, 2f, 3f);
      c.broadcast(x, 0);
      assertThat(x.toFloatVector()).containsExactly(1f, 2f, 3f);
      assertThat(c.sum(new long[] {4, 5})).containsExactly(4, 5);
    }
  }

  @Test
  void shouldNotLoadTheCudaBridgeOnTheCpuBackend() {
    assertThat(Nd4jDevices.nd4jOnCuda()).isFalse();
    assertThat(Nd4jDevices.load()).isNull();
    // The compile-only jar is kept off the test classpath, so any path that touched ND4J's CUDA
    // classes on the CPU backend would fail in these tests.
    assertThatThrownBy(() -> Class.forName("org.nd4j.linalg.jcublas.context.CudaContext"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void shouldRefuseACudaOrNcclGroupWhileNd4jRunsOnTheCpu() {
    assertThatThrownBy(() -> Nd4jDevices.checkCompatible("cuda"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DDP4J_BACKEND=cpu")
        .hasMessageContaining("-Pnd4j-cuda");
    assertThatThrownBy(() -> Nd4jDevices.checkCompatible("nccl"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("the process group is 'nccl' but ND4J runs on its CPU backend");
    Nd4jDevices.checkCompatible("cpu");
  }

  @Test
  void deviceHooksShouldExistForEveryBuiltInHook() {
    for (String name : new String[] {"allreduce", "fp16", "bf16"}) {
      assertThat(DeviceCommHook.of(null, CommHooks.named(name)).name()).isEqualTo(name);
    }
  }
}
