package dev.ddp4j.runtime.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.KernelBinaries;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SyntheticKernelBinaryTest {

  @Test
  void shouldShipTheKernelBinaryBuiltFromTheCurrentSource() throws Exception {
    KernelBinaries.assertBuiltFromSource(
        "src/main/cuda/ddp4j_synthetic.cu",
        SyntheticModel.RESOURCE,
        "/dev/ddp4j/runtime/cuda/ddp4j_synthetic.sha256");
    String text =
        new String(KernelBinaries.resource(SyntheticModel.RESOURCE), StandardCharsets.ISO_8859_1);
    assertThat(text).contains("ddp4j_backward_spin").contains("ddp4j_sgd");
  }
}
