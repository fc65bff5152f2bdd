package dev.ddp4j.collectives.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.GpuTest;
import java.nio.file.Path;

class TopologyDiscoveryGpuTest {

  /** On the H200 machine this is where NV18 must show up. */
  @GpuTest
  void shouldDiscoverEveryVisibleGpuAndItsNvlinks() throws Exception {
    TopologyDiscovery.Result r =
        TopologyDiscovery.discover(dev.ddp4j.spi.Settings.empty(), Path.of("/sys"), 1);
    Topology t = r.topology();
    System.out.println(String.join("\n", r.notes()));
    System.out.println(TopologyMatrix.render(t, t.deviceCount()));
    assertThat(t.deviceCount()).isEqualTo(CudaProbe.gpus().size());
    assertThat(t.hasGpus()).isTrue();
    Process p = new ProcessBuilder("nvidia-smi", "topo", "-m").redirectErrorStream(true).start();
    String smi = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    Topology fromSmi = NvidiaSmiTopoParser.parse(smi);
    for (int i = 0; i < t.deviceCount() && i < fromSmi.deviceCount(); i++) {
      for (int j = 0; j < t.deviceCount() && j < fromSmi.deviceCount(); j++) {
        if (i != j && fromSmi.route(i, j).type() == PathType.NV) {
          assertThat(t.route(i, j).label()).isEqualTo(fromSmi.route(i, j).label());
        }
      }
    }
  }
}
