package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.testing.KernelBinaries;
import org.junit.jupiter.api.Test;

class KernelBinaryTest {

  /**
   * What scripts/build-kernels.sh compiles for: machine code for every NVIDIA GPU generation from
   * Volta to Hopper, PTX that the driver JIT-compiles for newer ones.
   */
  static final java.util.List<Integer> MACHINE_CODE = java.util.List.of(70, 75, 80, 86, 89, 90);

  static final java.util.List<Integer> PTX = java.util.List.of(90);

  @Test
  void shouldHoldMachineCodeFromVoltaToHopperAndPtxForNewerGpus() throws Exception {
    for (String resource : new String[] {AllReduceKernels.RESOURCE, CollectiveLauncher.RESOURCE}) {
      FatBinaryArchitectures archs =
          FatBinaryArchitectures.parse(KernelBinaries.resource(resource));
      assertThat(archs.machineCode()).as(resource).containsExactlyElementsOf(MACHINE_CODE);
      assertThat(archs.ptx()).as(resource).containsExactlyElementsOf(PTX);
    }
  }

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
    String image = KernelBinaries.text(CollectiveLauncher.RESOURCE);
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
    String image = KernelBinaries.text(AllReduceKernels.RESOURCE);
    for (Algorithm a : Algorithm.kernels()) {
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
