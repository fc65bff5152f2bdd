package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The stall inspector through the real launcher and three worker JVMs (cpu backend, {@code
 * DDP4J_STALL_WARN_SECONDS=2}): the line comes within the warning time + 5 s, from rank 0 only,
 * naming the rank that holds the collective up and where it is; a slow rank is not killed; ranks
 * slow on a raised threshold's scale get no line.
 */
class StallInspectorProcessTest {

  private static final String STALL = "stall in cpu group g0: ";

  @Test
  void aRankSleepingInItsLoopShouldBeNamedWithItsLastCollectiveAndTheJobShouldStillSucceed()
      throws Exception {
    try (LauncherRun run = job(Map.of(), "sleep", "1", "5000", "10", "20")) {
      awaitLine(run, "rank 1 sleeps before #10", Duration.ofSeconds(60));
      String line = awaitLine(run, STALL, Duration.ofSeconds(2 + 5));
      assertThat(line)
          .startsWith("[rank0]:")
          .contains(STALL + "rank 1 has not called a collective for ")
          .contains("(last: allReduce #9; now at StallWorker.sleep(StallWorker.java:")
          .contains("; ranks 0, 2 have waited ")
          .contains(" in allReduce #10 (StallWorker.step(StallWorker.java:");
      int code = run.exitCode(Duration.ofSeconds(60));
      assertThat(code).as(run.output()).isZero();
      List<String> stalls = run.lines.stream().filter(l -> l.contains(STALL)).toList();
      // At 2 and 4 s of the 5 s sleep (the next would be at 8 s), all from rank 0.
      assertThat(stalls)
          .as(run.output())
          .hasSizeBetween(1, 2)
          .allMatch(l -> l.startsWith("[rank0]:"));
      assertThat(run.output())
          .contains(
              "stall in cpu group g0 over: allReduce of 16 float32 with SUM #10 finished after");
    }
  }

  @Test
  void ranksSlowOnlyOnTheScaleOfARaisedThresholdShouldGetNoLine() throws Exception {
    try (LauncherRun run =
        job(Map.of("DDP4J_STALL_WARN_SECONDS", "8"), "sleep", "1", "3000", "5", "10")) {
      int code = run.exitCode(Duration.ofSeconds(90));
      assertThat(code).as(run.output()).isZero();
      assertThat(run.output()).contains("rank 1 sleeps before #5").doesNotContain("stall in");
    }
  }

  @Test
  void aRankInAnotherGroupsCollectiveShouldBeNamedWithThatCollective() throws Exception {
    try (LauncherRun run = job(Map.of(), "group", "1", "5", "10")) {
      awaitLine(run, "rank 1 takes the other group before #5", Duration.ofSeconds(60));
      String line = awaitLine(run, STALL, Duration.ofSeconds(2 + 5));
      assertThat(line)
          .startsWith("[rank0]:")
          .contains(STALL + "rank 1 is in allReduce #0 of cpu group g1 (StallWorker.group(")
          .contains("and here has not called a collective for ")
          .contains("(last: allReduce #4; now at StallWorker.group(")
          .contains("; ranks 0, 2 have waited ")
          .contains(" in allReduce #5 (StallWorker.step(");
      String other = awaitLine(run, "stall in cpu group g1: ", Duration.ofSeconds(5));
      assertThat(other)
          .startsWith("[rank1]:")
          .contains(
              "stall in cpu group g1: ranks 0, 2 are in allReduce #5 of cpu group g0"
                  + " (StallWorker.step(")
          .contains("and here have not called a collective yet")
          .contains("; rank 1 has waited ")
          .contains(" in allReduce #0 (StallWorker.group(");
      assertThat(run.exitCode(Duration.ofSeconds(60))).as(run.output()).isZero();
    }
  }

  @Test
  void aStoppedRankShouldBeNamedWithinSecondsAndBlamedWhenTheJobTimesOut() throws Exception {
    try (LauncherRun run = job(Map.of("DDP4J_TIMEOUT_SECONDS", "10"), "spin")) {
      awaitLine(run, "rank 1 spinning", Duration.ofSeconds(60));
      long pid = pidOf(run, 1);
      signal("STOP", pid);
      try {
        String line = awaitLine(run, STALL, Duration.ofSeconds(2 + 5));
        assertThat(line)
            .startsWith("[rank0]:")
            .contains(STALL + "rank 1 has been silent for ")
            .contains("(no heartbeat: the process is stopped, frozen or swapping; last seen ")
            .contains("allReduce #")
            .contains("; ranks 0, 2 have waited ");
        int code = run.exitCode(Duration.ofSeconds(60));
        String out = run.output();
        assertThat(code).as(out).isEqualTo(1);
        assertThat(out)
            .contains(
                "[launcher] job failed: root cause rank 1 (named by the stall inspector before")
            .contains("\n  " + STALL + "rank 1 has been silent for ");
      } finally {
        new ProcessBuilder("kill", "-CONT", Long.toString(pid)).start().waitFor(); // if still there
      }
    }
  }

  private static LauncherRun job(Map<String, String> env, String... args) {
    Map<String, String> all = new java.util.HashMap<>();
    all.put("DDP4J_BACKEND", "cpu");
    all.put("DDP4J_STALL_WARN_SECONDS", "2");
    all.put("DDP4J_TIMEOUT_SECONDS", "30");
    all.putAll(env);
    String[] cmd = new String[args.length + 3];
    cmd[0] = "--nproc-per-node=3";
    cmd[1] = "--standalone";
    cmd[2] = "StallWorker";
    System.arraycopy(args, 0, cmd, 3, args.length);
    return LauncherRun.start(all, cmd);
  }

  /** The first console line containing {@code text}, waiting up to {@code within}. */
  private static String awaitLine(LauncherRun run, String text, Duration within) {
    String[] found = new String[1];
    await()
        .atMost(within)
        .pollInterval(Duration.ofMillis(50))
        .alias("a line containing '" + text + "'")
        .until(
            () -> {
              found[0] = run.lines.stream().filter(l -> l.contains(text)).findFirst().orElse(null);
              return found[0] != null;
            });
    return found[0];
  }

  private static long pidOf(LauncherRun run, int rank) {
    Pattern p = Pattern.compile("rank " + rank + " pid=(\\d+)");
    for (String l : run.lines) {
      Matcher m = p.matcher(l);
      if (m.find()) {
        return Long.parseLong(m.group(1));
      }
    }
    throw new AssertionError("no pid of rank " + rank + " in:\n" + run.output());
  }

  private static void signal(String name, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
  }
}
