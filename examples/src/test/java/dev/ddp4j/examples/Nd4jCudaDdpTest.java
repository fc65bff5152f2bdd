package dev.ddp4j.examples;

import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.runtime.nd4jcuda.Nd4jDevices;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DdpModel on ND4J's CUDA backend with the {@code cuda} group, 2 ranks on 2 GPUs started by the
 * launcher: gradient buckets, the initial broadcast, example counts and synchronised batch norm
 * statistics all travel as device memory on ND4J's stream, and training still matches one process
 * on the concatenated batch. Needs {@code -Pnd4j-cuda}, a CUDA 11.6 runtime and two GPUs; skipped
 * elsewhere with the reason.
 */
@Tag("gpu")
class Nd4jCudaDdpTest {

  @Test
  void shouldTrainLikeOneProcessWithDeviceBucketsOnNd4jsStream(@TempDir Path dir) throws Exception {
    boolean onCuda;
    try {
      onCuda = Nd4jDevices.nd4jOnCuda();
    } catch (Throwable e) {
      onCuda = false;
    }
    Assumptions.assumeTrue(
        onCuda,
        "needs ND4J's CUDA backend (build with -Pnd4j-cuda on a machine with a CUDA 11.6 runtime);"
            + " ND4J runs on its CPU backend here");
    Assumptions.assumeTrue(
        CudaProbe.unavailableReason().isEmpty() && CudaProbe.gpus().size() >= 2,
        "needs 2 GPUs: "
            + CudaProbe.unavailableReason().orElse(CudaProbe.gpus().size() + " found"));
    int steps = 3;
    int localBatch = 6;
    LaunchedJob.runOk(
        2,
        Map.of("DDP4J_BACKEND", "cuda", "DDP4J_SYNC_BATCHNORM", "1"),
        BatchNormWorker.class.getName(),
        "dense",
        "" + steps,
        "" + localBatch,
        dir.toString());
    MultiLayerNetwork reference = BatchNormModels.model("dense", 1234);
    for (int s = 0; s < steps; s++) {
      reference.fit(BatchNormModels.globalBatch("dense", s, 2 * localBatch));
    }
    List<float[]> rank0 = LaunchedJob.snapshots(dir.resolve("rank0.params"));
    List<float[]> rank1 = LaunchedJob.snapshots(dir.resolve("rank1.params"));
    org.assertj.core.api.Assertions.assertThat(rank1.get(steps)).isEqualTo(rank0.get(steps));
    DdpParityTest.assertClose(
        rank0.get(steps), reference.params().dup().data().asFloat(), 1e-4, "after " + steps);
  }
}
