package dev.ddp4j.launcher.topo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TopoCommandTest {

  @TempDir Path tmp;

  private Path fixture(String name) throws IOException {
    Path p = tmp.resolve(name);
    try (InputStream in = getClass().getResourceAsStream("/topology/" + name)) {
      Files.write(p, in.readAllBytes());
    }
    return p;
  }

  /** Runs {@code topo} with {@code env} as the environment; returns exit code, stdout, stderr. */
  private static String[] run(Map<String, String> env, String... args) {
    TopoCommand cmd = new TopoCommand();
    cmd.env = dev.ddp4j.spi.Settings.of(env);
    CommandLine cl = new CommandLine(cmd);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  @Test
  void shouldExplainTheA100BoxWithChannelsPredictionsAndWarnings() throws IOException {
    String[] r =
        run(Map.of(), "--from-nvidia-smi", fixture("a100-4gpu-nvlink-pairs.txt").toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    // What a cuda group runs there: the hierarchy of the NVLink pairs (no direct kernels across
    // SYS), the ring channels for the other collectives.
    assertThat(r[1])
        .contains("GPU0\t X \tNV12\tSYS\tSYS")
        .contains("Channel 00/02 : 0[0] -> 1[1] via P2P/IPC over NVL (NV12, 300 GB/s)")
        .contains("Bottleneck: GPU1 -> GPU2 over SYS at 20 GB/s")
        .contains(
            "Hierarchical island 0/2 : [0, 1] reduce-scatter and all-gather inside (from 8 B)")
        .contains("Hierarchical column 0/2 : 0[0] -> 2[2] via P2P/IPC over SYS (20 GB/s)")
        .contains("Hierarchical column 1/2 : 3[3] -> 1[1] via P2P/IPC over SYS (20 GB/s)")
        .contains("256 MiB")
        .contains("  hierarchical (")
        .contains("WARN GPU1 -> GPU2 crosses PCIe (SYS)");
    // Every rank's route lines (what it logs at DDP4J_DEBUG=INFO) are lines topo printed.
    dev.ddp4j.collectives.topology.Topology t =
        dev.ddp4j.collectives.topology.TopologyDiscovery.readFile(
            fixture("a100-4gpu-nvlink-pairs.txt"));
    dev.ddp4j.collectives.plan.Plan plan =
        dev.ddp4j.collectives.cuda.GpuPlanning.plan(
            t, new int[] {0, 1, 2, 3}, dev.ddp4j.spi.Settings.empty());
    for (int rank = 0; rank < 4; rank++) {
      List<String> logged =
          new java.util.ArrayList<>(dev.ddp4j.collectives.plan.RouteLines.ofRank(t, plan, rank));
      logged.addAll(dev.ddp4j.collectives.plan.RouteLines.hierarchicalOfRank(t, plan, rank));
      assertThat(logged).hasSizeGreaterThan(2);
      for (String line : logged) {
        assertThat(r[1]).contains(line);
      }
    }
  }

  @Test
  void shouldPrintTheRouteLinesOfTheCudaGroupsPlan() throws IOException {
    Path file = fixture("dgx-h100-8gpu-nvswitch.txt");
    String[] r = run(Map.of(), "--from-nvidia-smi", file.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    dev.ddp4j.collectives.topology.Topology t =
        dev.ddp4j.collectives.topology.TopologyDiscovery.readFile(file);
    int[] devices = dev.ddp4j.collectives.plan.GpuOrder.of(t, 8);
    dev.ddp4j.collectives.plan.Plan plan =
        dev.ddp4j.collectives.cuda.GpuPlanning.plan(t, devices, dev.ddp4j.spi.Settings.empty());
    for (String line : dev.ddp4j.collectives.plan.RouteLines.of(t, plan)) {
      assertThat(r[1]).contains(line);
    }
    assertThat(r[1]).contains("ll (");
  }

  @Test
  void shouldPrintTheIssuesJsonFields() throws IOException {
    String[] r =
        run(
            Map.of(),
            "--from-nvidia-smi",
            fixture("a100-4gpu-nvlink-pairs.txt").toString(),
            "--json");
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    String json = r[1];
    assertThat(json)
        .contains("\"gpus\": [{\"index\": 0, \"name\": \"GPU0\"")
        .contains("{\"a\": 0, \"b\": 1, \"type\": \"NV12\", \"gbps\": 300.00}")
        .contains("\"rings\": [[0, 1, 2, 3], [0, 1, 2, 3]]")
        .contains(
            "{\"bytes\": 268435456, \"chosen\": \"hierarchical\", \"predictedBusBwGBps\": {\"ring\": ");
    for (long bytes : TopoReport.SIZES) {
      assertThat(json).contains("{\"bytes\": " + bytes + ", ");
    }
    assertThat(json.chars().filter(c -> c == '{').count())
        .isEqualTo(json.chars().filter(c -> c == '}').count());
  }

  @Test
  void shouldReportNv18BetweenTheH200s() throws IOException {
    String[] r =
        run(Map.of(), "--from-nvidia-smi", fixture("h200-2gpu-nv18.txt").toString(), "--json");
    assertThat(r[1]).contains("{\"a\": 0, \"b\": 1, \"type\": \"NV18\", \"gbps\": 450.00}");
  }

  @Test
  void shouldFollowForcedAlgorithmAndDrawAPicture() throws IOException {
    Path svg = tmp.resolve("topo.svg");
    String[] r =
        run(
            Map.of("DDP4J_ALGO", "ring"),
            "--from-xml",
            fixture("dgx1-v100-hybrid-cube-mesh.xml").toString(),
            "--nproc",
            "8",
            "--svg",
            svg.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1])
        .contains("ranks will use GPU order 0,3,2,1,5,6,7,4")
        .doesNotContain("  tree (");
    String picture = Files.readString(svg);
    assertThat(picture)
        .startsWith("<svg")
        .endsWith("</svg>\n")
        .contains(">GPU7</text>")
        .contains("NV2");
  }

  @Test
  void shouldPlanAcrossHostsAndRejectTooManyRanks() throws IOException {
    Path file = fixture("a100-4gpu-nvlink-pairs.txt");
    String[] r = run(Map.of(), "--from-nvidia-smi", file.toString(), "--hosts", "2");
    assertThat(r[1]).contains("8 GPUs on 2 hosts").contains("via NET/Socket over NET");
    String[] bad = run(Map.of(), "--from-nvidia-smi", file.toString(), "--nproc", "5");
    assertThat(bad[0]).isEqualTo("2");
    assertThat(bad[2]).contains("--nproc=5 but the topology has 4 devices");
  }

  @Test
  void shouldPredictTheColumnBetweenHostsOverNcclAndOverTheSocketsAsTheRanksLogIt()
      throws IOException {
    Path file = fixture("h200-2gpu-nv18.txt");
    dev.ddp4j.collectives.topology.Topology host =
        dev.ddp4j.collectives.topology.TopologyDiscovery.readFile(file);
    dev.ddp4j.collectives.topology.Topology t =
        dev.ddp4j.collectives.topology.MultiHost.join(List.of(host, host));
    int[] devices = {0, 1, 2, 3};
    for (String setting : List.of("auto", "socket")) {
      String[] r =
          run(
              Map.of("DDP4J_INTER_HOST", setting),
              "--from-nvidia-smi",
              file.toString(),
              "--hosts",
              "2");
      assertThat(r[0]).as(r[2]).isEqualTo("0");
      String first = setting.equals("auto") ? "NET/NCCL" : "NET/socket";
      String second = setting.equals("auto") ? "NET/socket" : "NET/NCCL";
      assertThat(r[1])
          .contains("4 GPUs on 2 hosts")
          .contains("Hierarchical column 0/2 : 0[0] -> 2[0] via " + first + " over NET (13 GB/s)")
          .contains("Hierarchical column 1/2 : 3[1] -> 1[1] via " + second + " over NET (13 GB/s)")
          .contains(
              "Between hosts: the plan above runs its hierarchical column via " + first + " (")
          .contains("  hierarchical (");
      // What each rank of such a group logs at DDP4J_DEBUG=INFO, for either column, topo printed.
      for (dev.ddp4j.collectives.plan.InterHost via :
          dev.ddp4j.collectives.plan.InterHost.values()) {
        dev.ddp4j.collectives.plan.Plan plan =
            dev.ddp4j.collectives.cuda.GpuPlanning.plan(
                t, devices, dev.ddp4j.spi.Settings.empty(), via);
        for (int rank = 0; rank < 4; rank++) {
          List<String> logged =
              new java.util.ArrayList<>(
                  dev.ddp4j.collectives.plan.RouteLines.ofRank(t, plan, rank));
          logged.addAll(dev.ddp4j.collectives.plan.RouteLines.hierarchicalOfRank(t, plan, rank));
          assertThat(logged).anyMatch(l -> l.contains(via.transport()));
          for (String line : logged) {
            assertThat(r[1]).contains(line);
          }
        }
      }
    }
  }

  @Test
  void shouldBeReachableFromTheLauncherCommandLine() throws IOException {
    CommandLine cl = dev.ddp4j.launcher.LaunchCommandAccess.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    int code = cl.execute("topo", "--from-nvidia-smi", fixture("h200-2gpu-nv18.txt").toString());
    assertThat(code).isZero();
    assertThat(out.toString()).contains("via P2P/IPC over NVL (NV18, 450 GB/s)");
  }

  @Test
  void shouldPrintTheSubgroupsOwnPlanAndRouteLinesForRanks() throws IOException {
    Path file = fixture("a100-4gpu-nvlink-pairs.txt");
    String[] r = run(Map.of(), "--from-nvidia-smi", file.toString(), "--ranks", "2,0");
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1])
        .contains("# subgroup of job ranks 2,0 (its rank i is the i-th of them)")
        .contains("2 GPUs on 1 host")
        .contains("GPU order (rank -> device): GPU2 GPU0")
        .contains("Channel 00/02 : 0[2] -> 1[0] via P2P/IPC over SYS (20 GB/s)")
        .doesNotContain("Hierarchical island");
    // What each rank of cuda's newGroup(2, 0) logs is what topo printed.
    dev.ddp4j.collectives.topology.Topology t =
        dev.ddp4j.collectives.topology.TopologyDiscovery.readFile(file);
    dev.ddp4j.collectives.plan.Plan plan =
        dev.ddp4j.collectives.cuda.GpuPlanning.plan(
            t, new int[] {2, 0}, dev.ddp4j.spi.Settings.empty());
    for (int rank = 0; rank < 2; rank++) {
      List<String> logged = dev.ddp4j.collectives.plan.RouteLines.ofRank(t, plan, rank);
      assertThat(logged).isNotEmpty();
      for (String line : logged) {
        assertThat(r[1]).contains(line);
      }
    }
  }

  @Test
  void shouldRejectRanksOutsideTheJobOrTwiceInOneLine() throws IOException {
    Path file = fixture("a100-4gpu-nvlink-pairs.txt");
    String[] outside = run(Map.of(), "--from-nvidia-smi", file.toString(), "--ranks", "0,4");
    assertThat(outside[0]).isEqualTo("2");
    assertThat(outside[2])
        .contains("--ranks: rank 4 in [0, 4] is not a rank of the group (expected: 0 <= rank < 4)");
    String[] twice = run(Map.of(), "--from-nvidia-smi", file.toString(), "--ranks", "1,1");
    assertThat(twice[0]).isEqualTo("2");
    assertThat(twice[2])
        .contains("--ranks: rank 1 appears twice in [1, 1] (expected: distinct ranks)");
  }
}
