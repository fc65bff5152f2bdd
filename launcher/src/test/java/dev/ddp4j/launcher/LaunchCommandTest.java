package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
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
}
