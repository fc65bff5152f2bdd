package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class LaunchCommandTest {

  private static String[] run(String... args) {
    CommandLine cl = LaunchCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  @Test
  void helpShouldListEveryTorchrunFlagAndExitZero() {
    String[] r = run("--help");
    assertThat(r[0]).isEqualTo("0");
    for (String flag :
        new String[] {
          "--nproc-per-node", "--nnodes", "--node-rank", "--master-addr", "--master-port",
              "--init-method",
          "--rdzv-endpoint", "--max-restarts", "--monitor-interval", "--log-dir", "--redirects",
              "--tee",
          "--standalone", "--local-ranks-filter"
        }) {
      assertThat(r[1]).contains(flag);
    }
  }

  @Test
  void aBadFlagShouldExitTwoNamingIt() {
    String[] r = run("--nproc-per-nod=4", "Train");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--nproc-per-nod=4");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--nproc-per-node=many BarrierWorker | --nproc-per-node=many is not accepted (expected: a number >= 1, gpu, cpu or auto)",
        "--init-method=http://x:1 BarrierWorker | --init-method: init method 'http://x:1' has an unknown scheme",
        "--init-method=tcp://host BarrierWorker | lacks a host or port (expected: tcp://HOST:PORT",
        "--redirects=5 --log-dir=/tmp/x BarrierWorker | --redirects=5 is not accepted (expected: 0 none, 1 stdout, 2 stderr, 3 both)",
        "--tee=1 BarrierWorker | --redirects/--tee need --log-dir",
        "--nnodes=2 --master-port=0 BarrierWorker | --master-port=0 picks a port only one node knows",
        "--nnodes=2 --master-port=29999 BarrierWorker | needs a secret every launcher shares (expected: --store-secret-file=PATH",
        "--nnodes=1:4 BarrierWorker | --nnodes=1:4 is not accepted",
        "--nnodes=2 --node-rank=2 BarrierWorker | --node-rank=2 is outside the job (expected: -1 for join order, or 0 to 1)",
        "--nproc-per-node=2 --local-ranks-filter=3 BarrierWorker | --local-ranks-filter names local rank 3",
        "--standalone NoSuchMainClassAnywhere | no class named NoSuchMainClassAnywhere",
        "--standalone com.acme.Missing | main class com.acme.Missing is not on the classpath",
        "--standalone /nonexistent/app.jar | program /nonexistent/app.jar is not a file",
        "--standalone | no program given",
        "--rdzv-endpoint=host:notaport BarrierWorker | --rdzv-endpoint=notaport is not accepted (expected: HOST[:PORT], e.g. node0:29400)",
      })
  void badFlagsShouldExitTwoWithOneLineNamingTheFlagAndTheAcceptedForms(
      String args, String expected) {
    String[] r = run(args.trim().split(" "));
    assertThat(r[0]).as(r[2]).isEqualTo("2");
    assertThat(r[2]).contains(expected.trim());
    assertThat(r[2].strip().lines()).hasSize(1);
  }
}
