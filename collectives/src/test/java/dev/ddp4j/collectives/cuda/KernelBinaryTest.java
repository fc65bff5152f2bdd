package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.KernelBinaries;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KernelBinaryTest {

  @Test
  void shouldShipTheKernelBinaryBuiltFromTheCurrentSource() throws Exception {
    KernelBinaries.assertBuiltFromSource(
        "src/main/cuda/ddp4j_allreduce.cu",
        AllReduceKernels.RESOURCE,
        "/dev/ddp4j/collectives/cuda/ddp4j_allreduce.sha256");
  }

  @Test
  void shouldShipTheCollectiveKernelsBuiltFromTheCurrentSource() throws Exception {
    KernelBinaries.assertBuiltFromSource(
        "src/main/cuda/ddp4j_collectives.cu",
        CollectiveLauncher.RESOURCE,
        "/dev/ddp4j/collectives/cuda/ddp4j_collectives.sha256");
  }

  @Test
  void shouldDefineEveryCollectiveKernelTheBackendLooksUp() throws Exception {
    String image =
        new String(
            KernelBinaries.resource(CollectiveLauncher.RESOURCE), StandardCharsets.ISO_8859_1);
    assertThat(image).contains("ddp4j_allgather_bytes").contains("ddp4j_broadcast_bytes");
    for (dev.ddp4j.DataType t : dev.ddp4j.DataType.values()) {
      for (dev.ddp4j.ReduceOp op : dev.ddp4j.ReduceOp.values()) {
        assertThat(image).contains(CollectiveLauncher.reduceScatterName(t, op));
      }
    }
  }

  @Test
  void shouldDefineEveryKernelTheBackendLooksUp() throws Exception {
    // The fat binary embeds the PTX, whose .entry lines name every kernel.
    String image =
        new String(KernelBinaries.resource(AllReduceKernels.RESOURCE), StandardCharsets.ISO_8859_1);
    for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
      for (dev.ddp4j.DataType t : dev.ddp4j.DataType.values()) {
        for (dev.ddp4j.ReduceOp op : dev.ddp4j.ReduceOp.values()) {
          assertThat(image).contains(AllReduceKernels.name(a, t, op));
        }
      }
    }
    for (dev.ddp4j.DataType t : dev.ddp4j.DataType.values()) {
      for (dev.ddp4j.ReduceOp op : dev.ddp4j.ReduceOp.values()) {
        assertThat(image).contains(AllReduceKernels.ringReduceScatterName(t, op));
      }
    }
    assertThat(image)
        .contains(AllReduceKernels.RING_ALL_GATHER)
        .contains(AllReduceKernels.RING_BROADCAST);
  }
}
