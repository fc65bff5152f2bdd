package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * All-reduces that read peers' buffers with cross-memory attach (process_vm_readv) across real rank
 * processes: every dtype and op against the sequential reference, with the path forced for every
 * size ({@code DDP4J_CMA_MIN_BYTES=1}), with heap and native buffers mixed between ranks of one
 * collective (those take the rings), and switched off (explicitly, and by default). Fails if the
 * path silently falls back.
 */
class CrossMemoryAllReduceTest {

  private static final Pattern COUNT = Pattern.compile("cross-memory all-reduces: (\\d+)");
  private static final Pattern REFUSED =
      Pattern.compile("cross-memory attach off, all-reduces use the shared-memory rings: .*");

  /** The last column bounds the sizes: 4000 bytes mixes both paths within one run. */
  @ParameterizedTest(name = "{0} ranks, DDP4J_CMA_DISABLE={1}, bytes {2} to {4}, args: {3}")
  @CsvSource({
    "2, 0, 1, big, 9223372036854775807",
    "3, 0, 1, mixed, 9223372036854775807",
    "4, 0, 1, quick, 9223372036854775807",
    "2, 0, 1, mixed, 9223372036854775807",
    "3, 0, 1, quick, 4000",
    "2, 1, 1, quick, 9223372036854775807",
    "2, 0, off, quick, 9223372036854775807",
    "2, 0, default, big, default",
  })
  void shouldMatchTheReferenceReadingPeersBuffers(
      int ranks, String disabled, String minBytes, String mode, String maxBytes) throws Exception {
    List<Outcome> outcomes =
        RankProcesses.run(
            ranks, env(disabled, minBytes, maxBytes), CorrectnessScenario.class, 240, mode);
    String all = RankProcesses.describe(outcomes);
    boolean on = disabled.equals("0") && !minBytes.equals("off");
    Matcher refused = REFUSED.matcher(all);
    if (on && refused.find()) {
      // Not silent: the kernel said no (seccomp, Yama), and every rank warned naming why and the
      // fix. The rings ran, and the scenario checked their results.
      assertThat(outcomes).allSatisfy(o -> assertThat(o.exitStatus()).as(all).isZero());
      Assumptions.abort("this kernel refuses process_vm_readv here: " + refused.group());
    }
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).contains("rank " + o.rank() + " passed");
      long count = crossMemoryAllReduces(o, all);
      if (on) {
        assertThat(count)
            .as("all-reduces through cross-memory attach on rank %d\n%s", o.rank(), all)
            .isPositive();
      } else {
        assertThat(count).as(all).isZero();
      }
    }
    String route = on ? "via SHM/CMA over NODE" : "via SHM over NODE";
    assertThat(outcomes.get(0).output()).contains("Channel 00/01 : 0[0] -> 1[1] " + route);
    if (!on) {
      assertThat(outcomes.get(0).output())
          .contains(
              "cross-memory attach off: "
                  + (disabled.equals("1")
                      ? "DDP4J_CMA_DISABLE=1 on rank"
                      : "DDP4J_CMA_MIN_BYTES=off on rank"));
    }
  }

  /** "default" leaves a bound unset: the default window, 8 MiB to 16 MiB (the 12 MiB call). */
  private static Map<String, String> env(String disabled, String minBytes, String maxBytes) {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("DDP4J_CMA_DISABLE", disabled);
    env.put("DDP4J_DEBUG", "INFO");
    if (!minBytes.equals("default")) {
      env.put("DDP4J_CMA_MIN_BYTES", minBytes);
    }
    if (!maxBytes.equals("default")) {
      env.put("DDP4J_CMA_MAX_BYTES", maxBytes);
    }
    return env;
  }

  private static long crossMemoryAllReduces(Outcome o, String all) {
    Matcher m = COUNT.matcher(o.output());
    assertThat(m.find()).as("rank %d printed its count\n%s", o.rank(), all).isTrue();
    return Long.parseLong(m.group(1));
  }
}
