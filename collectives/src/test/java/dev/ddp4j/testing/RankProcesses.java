package dev.ddp4j.testing;

import dev.ddp4j.collectives.process.ChildProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Spawns the ranks of a test job as real JVMs, all at once ({@link RankProcessMain} with a fresh
 * {@link DirectoryStore} folder), waits for them with a deadline, and returns each one's exit
 * status and output. A rank still running at the deadline is killed and reported as status -1
 * ({@link ChildProcesses}, the launcher's).
 */
public final class RankProcesses {

  /** One rank's outcome. */
  public record Outcome(int rank, long pid, int exitStatus, String output) {}

  private RankProcesses() {}

  public static List<Outcome> run(
      int ranks,
      Map<String, String> env,
      Class<? extends RankProcessMain.RankScenario> scenario,
      long deadlineSeconds,
      String... args)
      throws IOException, InterruptedException {
    return run(ranks, r -> List.of(), env, scenario, deadlineSeconds, args);
  }

  /**
   * As above, each rank's command prefixed with {@code prefix.apply(rank)} (e.g. {@code ip netns
   * exec ns0}).
   */
  public static List<Outcome> run(
      int ranks,
      java.util.function.IntFunction<List<String>> prefix,
      Map<String, String> env,
      Class<? extends RankProcessMain.RankScenario> scenario,
      long deadlineSeconds,
      String... args)
      throws IOException, InterruptedException {
    List<String> rest = new ArrayList<>(List.of(scenario.getName()));
    rest.addAll(List.of(args));
    return runMain(ranks, prefix, env, RankProcessMain.class, deadlineSeconds, rest);
  }

  /**
   * Runs {@code main} as each rank, with the arguments {@code <storeDir> <rank> <ranks> args...}:
   * for tests whose ranks join by themselves rather than through {@link RankProcessMain}.
   */
  public static List<Outcome> runMain(
      int ranks,
      java.util.function.IntFunction<List<String>> prefix,
      Map<String, String> env,
      Class<?> main,
      long deadlineSeconds,
      List<String> args)
      throws IOException, InterruptedException {
    Path storeDir = Files.createTempDirectory("ddp4j-store");
    ChildProcesses<Process> processes = new ChildProcesses<>(p -> p);
    List<Path> logs = new ArrayList<>();
    try {
      for (int r = 0; r < ranks; r++) {
        List<String> cmd = new ArrayList<>(prefix.apply(r));
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1"); // short jobs: C1 alone starts faster on 2 cores
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.add(storeDir.toString());
        cmd.add(Integer.toString(r));
        cmd.add(Integer.toString(ranks));
        cmd.addAll(args);
        Path log = Files.createTempFile("ddp4j-rank" + r, ".log");
        logs.add(log);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        pb.environment().putAll(env);
        processes.add(pb.start());
      }
      // Every rank runs to its end (a failed one does not stop the others: tests read their
      // errors), up to the deadline.
      long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(deadlineSeconds);
      ChildProcesses.Ending<Process> end;
      do {
        long leftNs = Math.max(0, deadlineNs - System.nanoTime());
        end = processes.await(Duration.ofMillis(20), Duration.ofNanos(leftNs));
      } while (end.stopped().isEmpty() && !end.running().isEmpty());
      processes.stopAll(Duration.ZERO);
      List<Outcome> outcomes = new ArrayList<>();
      List<Process> all = processes.children();
      for (int r = 0; r < ranks; r++) {
        Process p = all.get(r);
        int status = end.running().contains(p) ? -1 : p.exitValue();
        outcomes.add(
            new Outcome(r, p.pid(), status, Files.readString(logs.get(r), StandardCharsets.UTF_8)));
      }
      return outcomes;
    } finally {
      processes.stopAll(Duration.ZERO);
      for (Path log : logs) {
        Files.deleteIfExists(log);
      }
      try (var files = Files.list(storeDir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(storeDir);
    }
  }

  /** Every outcome's output, for assertion messages. */
  public static String describe(List<Outcome> outcomes) {
    StringBuilder sb = new StringBuilder();
    for (Outcome o : outcomes) {
      sb.append("--- rank ").append(o.rank()).append(" exit ").append(o.exitStatus()).append('\n');
      sb.append(o.output());
    }
    return sb.toString();
  }
}
