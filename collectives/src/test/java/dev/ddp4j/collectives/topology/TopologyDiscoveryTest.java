package dev.ddp4j.collectives.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyDiscoveryTest {

  @TempDir Path tmp;

  /** Lays out a device the way sysfs does: a directory in the tree and a bus/pci/devices link. */
  private void device(Path sys, String treePath, String speed, int width, int numa)
      throws IOException {
    Path dir = sys.resolve("devices").resolve(treePath);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("current_link_speed"), speed + "\n");
    Files.writeString(dir.resolve("current_link_width"), width + "\n");
    Files.writeString(dir.resolve("numa_node"), numa + "\n");
    Path link = sys.resolve("bus/pci/devices").resolve(dir.getFileName().toString());
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, dir);
  }

  private Path fakeSysfs() throws IOException {
    Path sys = tmp.resolve("sys");
    String sw = "pci0000:17/0000:17:00.0/0000:18:00.0";
    device(sys, "pci0000:17/0000:17:00.0", "16.0 GT/s PCIe", 16, 0);
    device(sys, sw, "16.0 GT/s PCIe", 16, 0);
    device(sys, sw + "/0000:19:08.0", "16.0 GT/s PCIe", 16, 0);
    device(sys, sw + "/0000:19:10.0", "16.0 GT/s PCIe", 16, 0);
    device(sys, sw + "/0000:19:08.0/0000:1b:00.0", "16.0 GT/s PCIe", 16, 0);
    device(sys, sw + "/0000:19:10.0/0000:1c:00.0", "8.0 GT/s PCIe", 8, 0);
    device(sys, "pci0000:3a/0000:3a:00.0", "16.0 GT/s PCIe", 16, 0);
    device(sys, "pci0000:3a/0000:3a:00.0/0000:3b:00.0", "16.0 GT/s PCIe", 16, 0);
    device(sys, "pci0000:ae/0000:ae:00.0", "16.0 GT/s PCIe", 16, 1);
    device(sys, "pci0000:ae/0000:ae:00.0/0000:af:00.0", "16.0 GT/s PCIe", 16, 1);
    return sys;
  }

  @Test
  void shouldRebuildSwitchesHostBridgesAndSocketsFromSysfs() throws IOException {
    Path sys = fakeSysfs();
    TopologyBuilder b = new TopologyBuilder();
    SysfsPci pci = new SysfsPci(sys, b);
    String[] gpus = {"0000:1b:00.0", "0000:1c:00.0", "0000:3b:00.0", "0000:af:00.0"};
    for (int i = 0; i < gpus.length; i++) {
      SysfsPci.Attachment at = pci.attach(gpus[i]);
      int id = b.node(NodeType.GPU, "GPU" + i, 0, Map.of("dev", Integer.toString(i)));
      b.link(id, at.parent(), LinkType.PCI, at.width(), at.gbps());
    }
    Topology t = b.build();
    assertThat(t.route(0, 1).label()).isEqualTo("PIX");
    assertThat(t.route(0, 1).gbps()).isEqualTo(Bandwidths.pcieGbps(8.0, 8));
    assertThat(t.route(0, 2).label()).isEqualTo("NODE");
    assertThat(t.route(2, 3).label()).isEqualTo("SYS");
    assertThat(t.device(3).host()).isZero();
  }

  @Test
  void shouldSpellNvmlAndCudaBusIdsTheWaySysfsDoes() {
    assertThat(SysfsPci.normalizeBusId("00000000:1B:00.0")).isEqualTo("0000:1b:00.0");
    assertThat(SysfsPci.normalizeBusId("0000:1b:00.0")).isEqualTo("0000:1b:00.0");
    assertThat(SysfsPci.normalizeBusId("1b:00.0")).isEqualTo("0000:1b:00.0");
  }

  @Test
  void shouldReadTheGpuListOfNvidiaSmiWhenJcudaCannotLoad() {
    var gpus =
        GpuDiscovery.parseQueryGpu(
            "0, 00000000:18:00.0, 9.0, NVIDIA H200\n1, 00000000:2A:00.0, 9.0, NVIDIA H200\n");
    assertThat(gpus).hasSize(2);
    assertThat(gpus.get(1).busId()).isEqualTo("0000:2a:00.0");
    assertThat(gpus.get(1).sm()).isEqualTo(90);
    assertThat(gpus.get(0).name()).isEqualTo("NVIDIA H200");
    var old = GpuDiscovery.parseQueryGpu("0, 00000000:3B:00.0, Tesla V100-SXM2-16GB\n");
    assertThat(old.get(0).sm()).isEqualTo(80);
    assertThat(old.get(0).name()).isEqualTo("Tesla V100-SXM2-16GB");
  }

  @Test
  void shouldGiveCpuRanksOnAMachineWithoutGpus() {
    assumeThat(Files.exists(Path.of("/dev/nvidiactl"))).as("a GPU machine").isFalse();
    TopologyDiscovery.Result r =
        TopologyDiscovery.discover(dev.ddp4j.spi.Settings.empty(), Path.of("/sys"), 3);
    assertThat(r.topology().deviceCount()).isEqualTo(3);
    assertThat(r.topology().hasGpus()).isFalse();
    assertThat(r.notes())
        .anyMatch(n -> n.contains("3 CPU ranks"))
        .anyMatch(n -> n.startsWith("no GPU"));
  }

  @Test
  void shouldReadTheTopologyFileInsteadOfDiscoveringAndDumpWhatItUses() throws IOException {
    Path file = tmp.resolve("topo.txt");
    Files.writeString(file, Fixtures.text(Fixtures.A100_4));
    Path dump = tmp.resolve("dump.xml");
    TopologyDiscovery.Result r =
        TopologyDiscovery.discover(
            dev.ddp4j.spi.Settings.of(
                Map.of("NCCL_TOPO_FILE", file.toString(), "DDP4J_TOPO_DUMP_FILE", dump.toString())),
            Path.of("/nonexistent"),
            2);
    assertThat(r.topology().deviceCount()).isEqualTo(4);
    assertThat(r.notes()).anyMatch(n -> n.contains("read from " + file));
    Topology back = TopologyDiscovery.readFile(dump);
    assertThat(back.route(0, 1).label()).isEqualTo("NV12");
    assertThat(back.route(1, 2).label()).isEqualTo("SYS");
  }
}
