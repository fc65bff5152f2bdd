package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two "hosts" on this machine: each rank in its own network namespace (joined by a veth pair) and
 * UTS namespace (its own host name), so the cpu group must use sockets over that link. Needs root
 * and iproute2 (as in CI); skipped with the reason elsewhere.
 */
class TwoHostSocketTest {

  private final String id = Long.toString(ProcessHandle.current().pid() % 100_000);
  private final List<String> namespaces = List.of("ddp4j-a" + id, "ddp4j-b" + id);

  @BeforeEach
  void createHosts() throws Exception {
    String a = namespaces.get(0);
    String b = namespaces.get(1);
    String va = "d4ja" + id;
    String vb = "d4jb" + id;
    String failed =
        sh(
            "ip netns add " + a,
            "ip netns add " + b,
            "ip link add " + va + " type veth peer name " + vb,
            "ip link set " + va + " netns " + a,
            "ip link set " + vb + " netns " + b,
            "ip -n " + a + " addr add 10.231.7.1/24 dev " + va,
            "ip -n " + b + " addr add 10.231.7.2/24 dev " + vb,
            "ip -n " + a + " link set " + va + " up",
            "ip -n " + b + " link set " + vb + " up",
            "ip -n " + a + " link set lo up",
            "ip -n " + b + " link set lo up");
    Assumptions.assumeTrue(
        failed == null, "needs root and iproute2 to build network namespaces: " + failed);
  }

  @AfterEach
  void removeHosts() throws Exception {
    for (String ns : namespaces) {
      sh("ip netns del " + ns);
    }
  }

  @Test
  void shouldRunEveryCollectiveBetweenTwoHostsOverSockets() throws Exception {
    List<Outcome> outcomes = correctnessOnTwoHosts(2, Map.of());
    assertThat(outcomes.get(0).output())
        .contains("Channel 00/01 : 0[0] -> 1[1] via NET/Socket (10.231.7.2:");
  }

  @Test
  void shouldFailWithinSecondsNamingTheRankWhoseLinkWasCutMidCollective() throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(
            2,
            this::onItsHost,
            Map.of("DDP4J_SOCKET_IFNAME", "d4j", "DDP4J_SOCKET_LIVENESS_MS", "2000"),
            FailureScenarios.LinkCut.class,
            120,
            "d4jb" + id);
    String all = RankProcesses.describe(outcomes);
    assertThat(outcomes.get(1).output()).as(all).contains("rank 1 cut its link");
    assertThat(outcomes.get(0).exitStatus()).as(all).isZero();
    assertThat(outcomes.get(0).output()).as(all).contains("rank 0 saw rank 1 vanish");
  }

  @Test
  void shouldRunTheHierarchicalAllReduceWithTheHostsAsIslands() throws Exception {
    List<Outcome> outcomes = correctnessOnTwoHosts(4, Map.of("DDP4J_ALGO", "hierarchical"));
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.output()).as(all).contains("rank " + o.rank() + " passed");
    }
    assertThat(outcomes.get(0).output())
        .as(all)
        .contains("all-reduce algorithm by size: hierarchical 8 B-4 GiB");
  }

  @Test
  void shouldRingRanksOfOneHostNextToEachOtherWhenPlacedRoundRobin() throws Exception {
    List<Outcome> outcomes = correctnessOnTwoHosts(4, Map.of());
    String all = RankProcesses.describe(outcomes);
    // ranks 0 and 2 on host0, 1 and 3 on host1: ring 0 2 1 3, two network hops instead of four
    assertThat(outcomes.get(0).output()).as(all).contains("0[0] -> 2[2] via SHM over NODE");
    assertThat(outcomes.get(2).output()).as(all).contains("2[2] -> 1[1] via NET/Socket");
    assertThat(outcomes.get(1).output()).as(all).contains("1[1] -> 3[3] via SHM over NODE");
    assertThat(outcomes.get(3).output()).as(all).contains("3[3] -> 0[0] via NET/Socket");
  }

  @Test
  void shouldExchangeMessagesAndRunRootedAndObjectCollectivesOverSocketsAndSharedMemory()
      throws Exception {
    // ranks 0 and 2 share host0: their messages cross shared memory, the others' the veth link
    List<Outcome> outcomes = onTwoHosts(4, Map.of(), PointToPointScenario.class);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.output()).as(all).contains("rank " + o.rank() + " exchanged 8 MiB both ways");
      assertThat(o.output()).as(all).contains("rank " + o.rank() + " passed");
    }
  }

  /**
   * Runs the correctness scenario ("quick") on {@code ranks} ranks placed round robin on the two
   * hosts, with INFO route lines and {@code extraEnv}; every rank must exit 0.
   */
  private List<Outcome> correctnessOnTwoHosts(int ranks, Map<String, String> extraEnv)
      throws Exception {
    return onTwoHosts(ranks, extraEnv, CorrectnessScenario.class, "quick");
  }

  /** Runs {@code scenario} so, with {@code args}. */
  private List<Outcome> onTwoHosts(
      int ranks,
      Map<String, String> extraEnv,
      Class<? extends dev.ddp4j.testing.RankProcessMain.RankScenario> scenario,
      String... args)
      throws Exception {
    Map<String, String> env = new java.util.HashMap<>(extraEnv);
    env.put("DDP4J_SOCKET_IFNAME", "d4j");
    env.put("DDP4J_DEBUG", "INFO");
    List<Outcome> outcomes = RankProcesses.run(ranks, this::onItsHost, env, scenario, 240, args);
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
    }
    return outcomes;
  }

  /** The command prefix that puts {@code rank} on host {@code rank % 2}: its namespaces, name. */
  private List<String> onItsHost(int rank) {
    int host = rank % 2;
    return List.of(
        "ip",
        "netns",
        "exec",
        namespaces.get(host),
        "unshare",
        "--uts",
        "sh",
        "-c",
        "hostname host" + host + " && exec \"$0\" \"$@\"");
  }

  /** Runs each command; null if all succeeded, else the first failure. */
  private static String sh(String... commands) throws IOException, InterruptedException {
    for (String c : commands) {
      List<String> argv = new ArrayList<>(List.of(c.split(" ")));
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        return c + ": " + new String(p.getInputStream().readAllBytes()).trim();
      }
    }
    return null;
  }
}
