package dev.ddp4j.collectives.stall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** CI's pass over {@link CallSiteBench}: one round, which must print its four timings. */
class CallSiteBenchSmokeTest {

  @Test
  void shouldPrintTheLedgerAndCallSiteCostsOfOneRound() throws InterruptedException {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      CallSiteBench.main(new String[] {"1"});
    } finally {
      System.setOut(stdout);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    stdout.print(out);

    assertThat(out.lines())
        .singleElement()
        .asString()
        .matches(
            "round 0: per collective: work alone \\d+ ns, ledger \\+-?\\d+ ns, a StackWalker walk"
                + " instead \\+-?\\d+ ns; per heartbeat: a call site from a parked thread 20 frames"
                + " deep [0-9.]+ us");
  }
}
