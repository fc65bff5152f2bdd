package dev.ddp4j.bench.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import dev.ddp4j.testing.KernelBinaries;
import org.junit.jupiter.api.Test;

class SyntheticKernelBinaryTest {

  @Test
  void shouldShipTheKernelBinaryBuiltFromTheCurrentSource() throws Exception {
    KernelBinaries.assertBuiltFromSource(
        "src/main/cuda/ddp4j_synthetic.cu",
        SyntheticModel.RESOURCE,
        "/dev/ddp4j/bench/ddp/ddp4j_synthetic.sha256");
    String text = KernelBinaries.text(SyntheticModel.RESOURCE);
    assertThat(text).contains("ddp4j_backward_spin").contains("ddp4j_sgd");
  }

  @Test
  void shouldHoldMachineCodeFromVoltaToHopperAndPtxForNewerGpus() throws Exception {
    FatBinaryArchitectures archs =
        FatBinaryArchitectures.parse(KernelBinaries.resource(SyntheticModel.RESOURCE));
    assertThat(archs.machineCode()).containsExactly(70, 75, 80, 86, 89, 90);
    assertThat(archs.ptx()).containsExactly(90);
  }
}
