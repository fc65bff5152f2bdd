package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CudaProbeTest {

  @Test
  void shouldGiveAReasonInsteadOfFailingWhereThereIsNoDriver() {
    if (Files.exists(Path.of("/dev/nvidiactl"))) {
      assertThat(CudaProbe.unavailableReason()).isEmpty();
    } else {
      assertThat(CudaProbe.unavailableReason())
          .contains("no NVIDIA driver: /dev/nvidiactl is absent");
      assertThatThrownBy(CudaProbe::gpus).hasMessageContaining("CUDA is not usable here");
    }
  }

  @GpuTest
  void shouldListEveryVisibleGpuWithItsPciBusId() {
    var gpus = CudaProbe.gpus();
    assertThat(gpus).isNotEmpty();
    for (int i = 0; i < gpus.size(); i++) {
      assertThat(gpus.get(i).ordinal()).isEqualTo(i);
      assertThat(gpus.get(i).pciBusId())
          .matches("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9]");
      assertThat(gpus.get(i).totalMemoryBytes()).isGreaterThan(1L << 30);
      assertThat(gpus.get(i).name()).isNotBlank();
    }
  }
}
