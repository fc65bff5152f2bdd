package dev.ddp4j.collectives.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NvidiaSmiTopoParserTest {

  /** The GPU-by-GPU cells of a pasted matrix, ANSI codes removed. */
  private static String[][] cells(String text, int gpus) {
    String[] lines = text.replaceAll("\u001B?\\[[0-9;]*m", "").split("\n");
    String[][] out = new String[gpus][gpus];
    for (String line : lines) {
      String[] tok = line.trim().split("\\s+");
      if (tok[0].matches("GPU\\d+") && tok.length > gpus) {
        int row = Integer.parseInt(tok[0].substring(3));
        for (int c = 0; c < gpus; c++) {
          out[row][c] = tok[c + 1];
        }
      }
    }
    return out;
  }

  @Test
  void shouldReadTheA100BoxWithAnsiHeaderNicAndLegend() {
    Topology t = Fixtures.load(Fixtures.A100_4);
    assertThat(t.deviceCount()).isEqualTo(4);
    assertThat(t.nodes()).anyMatch(n -> n.type() == NodeType.NIC && n.name().equals("mlx5_0"));
    assertThat(t.route(0, 1).label()).isEqualTo("NV12");
    assertThat(t.route(0, 1).gbps()).isEqualTo(300.0);
    assertThat(t.route(3, 2).label()).isEqualTo("NV12");
    assertThat(t.route(1, 2).label()).isEqualTo("SYS");
    assertThat(t.route(1, 2).gbps()).isEqualTo(Bandwidths.SYS_GBPS);
    assertThat(t.device(2).attr("numaid", "")).isEqualTo("1");
  }

  @Test
  void shouldReproduceEveryGpuPairClassOfEveryFixture() {
    for (String name : Fixtures.NVIDIA_SMI) {
      Topology t = Fixtures.load(name);
      String[][] expected = cells(Fixtures.text(name), t.deviceCount());
      for (int i = 0; i < t.deviceCount(); i++) {
        for (int j = 0; j < t.deviceCount(); j++) {
          String got = i == j ? "X" : t.route(i, j).label();
          assertThat(got).as(name + " GPU" + i + "-GPU" + j).isEqualTo(expected[i][j]);
        }
      }
    }
  }

  @Test
  void shouldPutEightNv18GpusBehindOneNvSwitch() {
    Topology t = Fixtures.load(Fixtures.DGX_H100_8);
    assertThat(t.nodes().stream().filter(n -> n.type() == NodeType.NVSWITCH)).hasSize(1);
    assertThat(t.route(0, 7).label()).isEqualTo("NV18");
    assertThat(t.route(0, 7).hops()).hasSize(2);
    assertThat(t.route(0, 7).gbps()).isEqualTo(450.0);
  }

  @Test
  void shouldReadEscapeCodesWhoseEscByteWasLostInThePaste() {
    String pasted = Fixtures.text(Fixtures.H200_2).replace("\u001B", "");
    Topology t = NvidiaSmiTopoParser.parse(pasted);
    assertThat(t.route(0, 1).label()).isEqualTo("NV18");
  }

  @Test
  void shouldNameWhatIsMissingWhenTheTextIsNotAMatrix() {
    assertThatThrownBy(() -> NvidiaSmiTopoParser.parse("hello\nworld\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GPU0")
        .hasMessageContaining("nvidia-smi topo -m");
  }

  @Test
  void shouldRenderTheMatrixItRead() {
    Topology t = Fixtures.load(Fixtures.PCIE_4);
    String rendered = TopologyMatrix.render(t, 4);
    Topology again = NvidiaSmiTopoParser.parse(rendered);
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        assertThat(again.route(i, j).label()).isEqualTo(t.route(i, j).label());
      }
    }
    assertThat(rendered).contains("Legend:").contains("PIX  = Connection traversing at most");
  }
}
