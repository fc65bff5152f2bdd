package dev.ddp4j.collectives.topology;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The test machines, read from src/test/resources/topology. */
public final class Fixtures {

  public static final String A100_4 = "a100-4gpu-nvlink-pairs.txt";
  public static final String H200_2 = "h200-2gpu-nv18.txt";
  public static final String DGX_H100_8 = "dgx-h100-8gpu-nvswitch.txt";
  public static final String PCIE_4 = "pcie-4gpu-two-sockets.txt";

  /**
   * The seed's own machine: 4 x A100, NVLink pairs (NV4) joined by one PCIe switch (PIX), where the
   * pipelined hierarchy beats the ring by about 1.5x at large sizes (issue 29).
   */
  public static final String A100_4_PIX = "a100-4gpu-nv4-pix.txt";

  /** 8 PCIe GPUs, two per switch (PIX), two switches per socket (PXB), two sockets (SYS). */
  public static final String PCIE_8 = "pcie-8gpu-two-sockets.txt";

  public static final String DGX1_V100_XML = "dgx1-v100-hybrid-cube-mesh.xml";

  /**
   * 16 V100 on NVSwitch (DGX-2 / HGX-2): every pair NV6, GPU pairs per PCIe switch, two sockets.
   */
  public static final String DGX2_V100_16 = "dgx2-v100-16gpu-nvswitch.txt";

  public static final List<String> NVIDIA_SMI =
      List.of(A100_4, A100_4_PIX, H200_2, DGX_H100_8, PCIE_4, DGX2_V100_16);
  public static final List<String> ALL =
      List.of(A100_4, A100_4_PIX, H200_2, DGX_H100_8, PCIE_4, DGX1_V100_XML);

  private Fixtures() {}

  public static String text(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/topology/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource topology/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Topology load(String name) {
    return name.endsWith(".xml")
        ? NcclTopoXmlReader.parse(text(name))
        : NvidiaSmiTopoParser.parse(text(name));
  }
}
