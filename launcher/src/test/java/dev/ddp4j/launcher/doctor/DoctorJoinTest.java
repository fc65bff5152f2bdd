package dev.ddp4j.launcher.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Multi-node doctors meeting through a real store on real sockets. */
class DoctorJoinTest {

  private static final String SECRET = "doctor-test-secret";

  @Test
  void twoNodesShouldJoinAndNodeZeroShouldReportTheOthersWarnings() throws Exception {
    int port = freePort();
    String[] flags = {"--nnodes=2", "--master-port=" + port, "--rdzv-timeout=20"};
    // Node 1's clock runs 5 s behind node 0's: the skew check sees it.
    CompletableFuture<DoctorRun> node1 =
        CompletableFuture.supplyAsync(
            () ->
                DoctorRun.of(
                    new RecordedMachine("container-64m").with("DDP4J_STORE_SECRET", SECRET),
                    () -> System.currentTimeMillis() - 5000,
                    concat(flags, "--node-rank=1")));
    DoctorRun node0 =
        DoctorRun.of(
            new RecordedMachine("dgx-h100").with("DDP4J_STORE_SECRET", SECRET),
            concat(flags, "--node-rank=0"));
    DoctorRun one = node1.get(30, TimeUnit.SECONDS);
    assertThat(node0.line("store-join")).startsWith("OK").contains("as node 0 (hosting it)");
    assertThat(one.line("store-join"))
        .startsWith("OK")
        .contains("as node 1, proving the job secret");
    assertThat(node0.line("nodes")).isEqualTo("OK   nodes       all 2 nodes joined");
    assertThat(one.line("clock")).startsWith("WARN").contains("NTP");
    assertThat(skewMs(one.line("clock"))).as(one.line("clock")).isBetween(4_000L, 6_000L);
    // Node 0 names node 1's problems: its Yama setting and the skew it measured.
    assertThat(node0.lines("node 1"))
        .anyMatch(
            l ->
                l.startsWith("WARN node 1")
                    && l.contains("3f2a9c1b7d10: ")
                    && l.contains("ptrace_scope=2"))
        .anyMatch(l -> l.contains("clock is +") && Math.abs(skewMs(l) - 5_000) <= 1_000);
    assertThat(node0.exitStatus()).as(node0.out()).isZero();
  }

  @Test
  void aStorePortNotReachableShouldFailNamingTheAddressWithinTheTimeout() throws IOException {
    int port = freePort(); // nobody listens there
    long start = System.nanoTime();
    DoctorRun r =
        DoctorRun.of(
            new RecordedMachine("dgx-h100").with("DDP4J_STORE_SECRET", SECRET),
            "--nnodes=2",
            "--node-rank=1",
            "--master-port=" + port,
            "--rdzv-timeout=2");
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(r.line("store-join"))
        .startsWith("FAIL")
        .contains("the store at 127.0.0.1:" + port + " is not reachable from this node within 2 s")
        .contains("open in node 0's firewall");
    assertThat(r.exitStatus()).isEqualTo(1);
    assertThat(tookMs).isLessThan(15_000);
  }

  @Test
  void aMissingNodeShouldBeNamedByNodeZero() throws IOException {
    DoctorRun r =
        DoctorRun.of(
            new RecordedMachine("dgx-h100").with("DDP4J_STORE_SECRET", SECRET),
            "--nnodes=3",
            "--node-rank=0",
            "--master-port=" + freePort(),
            "--rdzv-timeout=1");
    assertThat(r.line("nodes"))
        .startsWith("FAIL")
        .contains("1 of 3 nodes joined", "missing node rank(s) 1, 2");
    assertThat(r.exitStatus()).isEqualTo(1);
  }

  private static String[] concat(String[] a, String b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + 1);
    out[a.length] = b;
    return out;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * The skew a clock line reports, in ms ({@code ... clock is +4987 ms ...}); the measure moves by
   * the store's round trip, so tests bound it rather than match its digits.
   */
  private static long skewMs(String line) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("clock is ([+-]\\d+) ms").matcher(line);
    if (!m.find()) {
      throw new AssertionError("no skew in: " + line);
    }
    return Long.parseLong(m.group(1));
  }
}
