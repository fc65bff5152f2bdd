package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.InterHost;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanCompiler;
import dev.ddp4j.collectives.plan.PlanDigest;
import dev.ddp4j.collectives.plan.PlanSummary;
import dev.ddp4j.collectives.plan.Prediction;
import dev.ddp4j.collectives.plan.RouteLines;
import dev.ddp4j.collectives.schedule.ScheduleChecker;
import dev.ddp4j.collectives.topology.Fixtures;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.NcclTopoXmlWriter;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The plan of a cuda group on several hosts, without a GPU: the hosts as the hierarchy's islands,
 * the column between them over NCCL or the sockets ({@code DDP4J_INTER_HOST}), the algorithm per
 * size for each, the route lines, every schedule through the checker, the NCCL decision the ranks
 * agree on, and the fall-backs to the host-staged route.
 */
class CudaHostsPlanTest {

  private static int[] identity(int n) {
    int[] d = new int[n];
    for (int i = 0; i < n; i++) {
      d[i] = i;
    }
    return d;
  }

  /** The DGX H100 fixture with its four NICs at InfiniBand NDR's 400 Gb/s (the text says none). */
  private static Topology dgxWithNdr() {
    String xml = NcclTopoXmlWriter.write(Fixtures.load(Fixtures.DGX_H100_8));
    assertThat(xml).contains("speed=\"100000\"");
    return NcclTopoXmlReader.parse(xml.replace("speed=\"100000\"", "speed=\"400000\""));
  }

  private static Topology twoOf(Topology host) {
    return MultiHost.join(List.of(host, host));
  }

  private static Plan plan(Topology t, InterHost via) {
    return GpuPlanning.plan(t, identity(t.deviceCount()), dev.ddp4j.spi.Settings.empty(), via);
  }

  private static void assertSchedulesCheck(Plan p) {
    for (Prediction row : p.table()) {
      if (row.bytes() == 8 || row.bytes() == 1L << 20) {
        for (long count : new long[] {0, 1, 7, 4099}) {
          ScheduleChecker.check(PlanCompiler.allReduce(p, row.chosen(), count, 4, 1024));
        }
      }
    }
    for (long count : new long[] {1, 15, 4099}) {
      ScheduleChecker.check(PlanCompiler.allReduce(p, Algorithm.HIERARCHICAL, count, 4, 1024));
    }
  }

  @Test
  void shouldRunTwoDgxHostsHierarchicallyWithTheColumnOverNcclAtTheNicsSpeed() {
    Topology two = twoOf(dgxWithNdr());
    Plan nccl = plan(two, InterHost.NCCL);
    Plan socket = plan(two, InterHost.SOCKET);
    assertThat(nccl.islands())
        .extracting(java.util.Arrays::toString)
        .containsExactly("[0, 1, 2, 3, 4, 5, 6, 7]", "[8, 9, 10, 11, 12, 13, 14, 15]");
    assertThat(PlanSummary.bySize(nccl)).isEqualTo("hierarchical 8 B-4 GiB");
    assertThat(PlanSummary.bySize(socket)).isEqualTo("hierarchical 8 B-4 GiB");
    Prediction big = nccl.predictionFor(256L << 20);
    Prediction bigSocket = socket.predictionFor(256L << 20);
    // NCCL: the 1/8 block of each GPU crosses its NIC, two GPUs per NIC, whose 400 Gb/s sit
    // behind the fixture's PCIe Gen4 x16 (25 GB/s, the slowest link of the route); sockets: every
    // rank's block also passes through pinned host memory at the measured 5.7 GB/s.
    assertThat(big.busBwGbps(Algorithm.HIERARCHICAL)).isBetween(60.0, 120.0);
    assertThat(bigSocket.busBwGbps(Algorithm.HIERARCHICAL)).isBetween(30.0, 50.0);
    assertThat(bigSocket.busBwGbps(Algorithm.RING))
        .isLessThan(bigSocket.busBwGbps(Algorithm.HIERARCHICAL));
    assertThat(RouteLines.hierarchical(two, nccl))
        .contains(
            "Hierarchical column 0/8 : 0[0] -> 8[0] via NET/NCCL over NET (PCIe x16, 25 GB/s)")
        .noneMatch(l -> l.contains("NET/socket"));
    assertThat(RouteLines.hierarchical(two, socket))
        .contains(
            "Hierarchical column 7/8 : 15[7] -> 7[7] via NET/socket over NET (PCIe x16, 25 GB/s)");
    // The ring channels (the other collectives, host-staged) keep the cpu backend's name.
    assertThat(RouteLines.of(two, nccl)).anyMatch(l -> l.contains("via NET/Socket over NET"));
    assertThat(PlanDigest.canonical(nccl)).contains("inter-host nccl");
    assertThat(PlanDigest.sha256(nccl)).isNotEqualTo(PlanDigest.sha256(socket));
    assertSchedulesCheck(nccl);
    assertSchedulesCheck(socket);
  }

  @Test
  void shouldRunTwoHostsOfTwoH200sHierarchicallyEitherWay() {
    Topology two = twoOf(Fixtures.load(Fixtures.H200_2));
    for (InterHost via : InterHost.values()) {
      Plan p = plan(two, via);
      assertThat(PlanSummary.bySize(p)).as(via.id()).isEqualTo("hierarchical 8 B-4 GiB");
      assertThat(p.islands()).hasSize(2);
      // One assumed 100 Gb/s NIC per host carries both columns.
      assertThat(RouteLines.hierarchical(two, p))
          .contains(
              "Hierarchical column 1/2 : 1[1] -> 3[1] via "
                  + via.transport()
                  + " over NET (13 GB/s)");
      assertSchedulesCheck(p);
    }
    Prediction nccl = plan(two, InterHost.NCCL).predictionFor(256L << 20);
    Prediction socket = plan(two, InterHost.SOCKET).predictionFor(256L << 20);
    assertThat(nccl.busBwGbps(Algorithm.HIERARCHICAL))
        .isGreaterThan(socket.busBwGbps(Algorithm.HIERARCHICAL));
  }

  @Test
  void shouldKeepTheStagedRingAndSayWhyWhereHostsCannotBeIslands() {
    // One rank per host: nothing to reduce inside a host.
    Topology two = twoOf(Fixtures.load(Fixtures.H200_2));
    Plan single = GpuPlanning.plan(two, new int[] {0, 2}, dev.ddp4j.spi.Settings.empty());
    assertThat(single.uses(Algorithm.HIERARCHICAL)).isFalse();
    assertThat(GpuPlanning.whyNoHostHierarchy(two, single))
        .contains(
            "host 0 runs one rank (0): the hierarchy needs at least 2 ranks with peer access on"
                + " every host");
    // A pair inside a host without peer access.
    boolean[][] access = new boolean[4][4];
    for (boolean[] row : access) {
      java.util.Arrays.fill(row, true);
    }
    access[2][3] = access[3][2] = false;
    Topology denied = two.withPeerAccess(access);
    Plan noPeer = plan(denied, InterHost.NCCL);
    assertThat(noPeer.uses(Algorithm.HIERARCHICAL)).isFalse();
    assertThat(GpuPlanning.whyNoHostHierarchy(denied, noPeer))
        .contains(
            "ranks 2 and 3 share a host without peer access (the island's kernels need every"
                + " pair)");
    assertThat(RouteLog.betweenHostsLines(denied, noPeer, "x").get(0))
        .startsWith("between hosts: no hierarchical all-reduce, every collective host-staged:");
    // Unequal hosts.
    Topology three =
        MultiHost.join(List.of(Fixtures.load(Fixtures.A100_4), Fixtures.load(Fixtures.H200_2)));
    Plan unequal = plan(three, InterHost.NCCL);
    assertThat(GpuPlanning.whyNoHostHierarchy(three, unequal))
        .contains("the hosts run unequal numbers of ranks [4, 2] (the hierarchy needs equal ones)");
    Plan hier = plan(twoOf(Fixtures.load(Fixtures.H200_2)), InterHost.SOCKET);
    assertThat(GpuPlanning.whyNoHostHierarchy(two, hier)).isEmpty();
    assertThat(RouteLog.betweenHostsLines(two, hier, "DDP4J_INTER_HOST=socket"))
        .containsExactly(
            "between hosts: hierarchical from 8 B, the hosts as islands, the column via"
                + " NET/socket (DDP4J_INTER_HOST=socket)");
  }

  @Test
  void shouldTakeNcclOnlyWhereEveryRankLoadsIt() {
    InterHostChoice.Setting auto = InterHostChoice.setting(dev.ddp4j.spi.Settings.empty());
    assertThat(auto).isEqualTo(InterHostChoice.Setting.AUTO);
    assertThat(InterHostChoice.decide(auto, List.of("", "")).via()).isEqualTo(InterHost.NCCL);
    InterHostChoice.Decision fallback = InterHostChoice.decide(auto, List.of("", "no lib"));
    assertThat(fallback.via()).isEqualTo(InterHost.SOCKET);
    assertThat(fallback.why()).isEqualTo("DDP4J_INTER_HOST=auto: rank 1 cannot load NCCL (no lib)");
    InterHostChoice.Setting socket =
        InterHostChoice.setting(dev.ddp4j.spi.Settings.of(Map.of("DDP4J_INTER_HOST", "socket")));
    assertThat(InterHostChoice.decide(socket, List.of("", "")).via()).isEqualTo(InterHost.SOCKET);
    InterHostChoice.Setting nccl =
        InterHostChoice.setting(dev.ddp4j.spi.Settings.of(Map.of("DDP4J_INTER_HOST", " NCCL ")));
    assertThatThrownBy(() -> InterHostChoice.decide(nccl, List.of("", "", "no lib")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "DDP4J_INTER_HOST=nccl but rank 2 cannot load NCCL: no lib (fix: install NCCL on every"
                + " host, or set DDP4J_INTER_HOST=auto to run the column over the sockets)");
    assertThatThrownBy(
            () ->
                InterHostChoice.setting(
                    dev.ddp4j.spi.Settings.of(Map.of("DDP4J_INTER_HOST", "ib"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "DDP4J_INTER_HOST=ib (expected: auto, nccl or socket; auto = nccl where every rank"
                + " loads it)");
    assertThat(GpuPlanning.assumedInterHost(dev.ddp4j.spi.Settings.empty()))
        .isEqualTo(InterHost.NCCL);
    assertThat(
            GpuPlanning.assumedInterHost(
                dev.ddp4j.spi.Settings.of(Map.of("DDP4J_INTER_HOST", "socket"))))
        .isEqualTo(InterHost.SOCKET);
  }

  @Test
  void shouldAgreeThroughTheStoreOnSocketsWhenOneRankLacksNccl() throws Exception {
    InMemoryStore store = new InMemoryStore();
    int ranks = 4;
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<InterHostChoice.Decision>> out = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        out.add(
            pool.submit(
                () ->
                    InterHostChoice.agree(
                        store,
                        "g",
                        rank,
                        ranks,
                        InterHostChoice.Setting.AUTO,
                        () -> rank == 3 ? Optional.of("no libnccl.so.2") : Optional.empty(),
                        Duration.ofSeconds(20))));
      }
      for (Future<InterHostChoice.Decision> f : out) {
        assertThat(f.get().via()).isEqualTo(InterHost.SOCKET);
        assertThat(f.get().why()).contains("rank 3 cannot load NCCL (no libnccl.so.2)");
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
