package dev.ddp4j.runtime.nd4jcuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.Ddp;
import dev.ddp4j.InitOptions;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.runtime.nd4jcuda.Nd4jDevices.GradientPath;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * How DdpModel hands arrays to collectives on the CPU backend this build tests with: host memory in
 * place, the configured hook unchanged, and no ND4J CUDA class anywhere near the classpath.
 */
class Nd4jDevicesTest {

  private static ProcessGroup oneRankGroup(Path dir) {
    return Ddp.init(
        InitOptions.builder()
            .initMethod(dir.resolve("store").toUri().toString())
            .rank(0)
            .worldSize(1)
            .backend("cpu")
            .build(dev.ddp4j.spi.Settings.empty()));
  }

  @Test
  void shouldSumHostArraysInPlaceOnTheCpuBackend(@TempDir Path dir) {
    try (ProcessGroup group = oneRankGroup(dir)) {
      NdCollectives c = NdCollectives.of(group);
      assertThat(c.onDevice()).isFalse();
      INDArray bucket = Nd4j.createFromArray(1f, 2f, 3f, 4f).get(NDArrayIndex.interval(1, 3));
      c.start(bucket).await();
      assertThat(bucket.toFloatVector()).containsExactly(2f, 3f);
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
  void shouldChooseThePathByWhereNd4jKeepsTheGradients() {
    for (String backend : new String[] {"cpu", "cuda", "nccl"}) {
      assertThat(Nd4jDevices.path(false, backend)).as(backend).isEqualTo(GradientPath.HOST);
    }
    assertThat(Nd4jDevices.path(true, "cuda")).isEqualTo(GradientPath.DEVICE);
    assertThat(Nd4jDevices.path(true, "nccl")).isEqualTo(GradientPath.DEVICE);
    assertThat(Nd4jDevices.path(true, "cpu")).isEqualTo(GradientPath.HOST_STAGED);
  }

  @Test
  void shouldSayWhyTheModelComputesOnTheCpuOfAGpuNd4jCannotServe() {
    var h200 = new CudaProbe.Gpu(1, "NVIDIA H200", "0000:19:00.0", 141L << 30, 90);
    assertThat(Nd4jCudaBuild.hostComputeNotice("cuda", 1, Optional.of(h200), ""))
        .isEqualTo(
            "DdpModel: the model computes on the CPU (ND4J's CPU backend, nd4j-native) and its"
                + " gradients take the cuda group's host half (shared memory, sockets): GPU 1"
                + " (NVIDIA H200, compute capability 9.0) cannot run ND4J 1.0.0-M2.1's CUDA build,"
                + " which holds machine code for sm_37, sm_50, sm_52, sm_60, sm_61, sm_70, sm_75,"
                + " sm_80, sm_86 and no PTX");
    var a100 = new CudaProbe.Gpu(0, "NVIDIA A100-SXM4-80GB", "0000:07:00.0", 80L << 30, 80);
    assertThat(Nd4jCudaBuild.hostComputeNotice("nccl", 0, Optional.of(a100), ""))
        .endsWith(
            "nccl group's host half (shared memory, sockets); ND4J's CUDA backend could compute on"
                + " GPU 0 (NVIDIA A100-SXM4-80GB, compute capability 8.0): build with -Pnd4j-cuda"
                + " on a machine with the CUDA 11.6 runtime");
    assertThat(Nd4jCudaBuild.hostComputeNotice("cuda", 3, Optional.empty(), "no NVIDIA driver"))
        .endsWith("; GPU 3 could not be examined: no NVIDIA driver");
  }

  @Test
  void theBuildShouldRunOnAmpereAndAdaButNotOnHopper() {
    assertThat(Nd4jCudaBuild.ARCHITECTURES.runsOn(7, 0)).as("V100").isTrue();
    assertThat(Nd4jCudaBuild.ARCHITECTURES.runsOn(7, 5)).as("T4").isTrue();
    assertThat(Nd4jCudaBuild.ARCHITECTURES.runsOn(8, 6)).as("RTX 30").isTrue();
    assertThat(Nd4jCudaBuild.ARCHITECTURES.runsOn(8, 9)).as("RTX 40").isTrue();
    assertThat(Nd4jCudaBuild.ARCHITECTURES.runsOn(9, 0)).as("H100, H200").isFalse();
    assertThat(Nd4jCudaBuild.ARCHITECTURES.runsOn(12, 0)).as("Blackwell").isFalse();
  }
}
