package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.InitMethod;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.process.ChildProcesses;
import dev.ddp4j.collectives.store.FileStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts one JVM per rank on this machine (one per GPU), with torchrun's variables and a shared
 * {@link FileStore}, and waits for them: the GPU test and bench harness, where the launcher is not
 * at hand. When one rank fails, the others are stopped after a grace period instead of waiting out
 * their timeouts ({@link ChildProcesses}, the launcher's too).
 */
public final class LocalRanks {

  /** The ranks' shared store file; set for every rank. */
  public static final String STORE_FILE = "DDP4J_HARNESS_STORE_FILE";

  /** What each rank printed and how it ended. */
  public record Result(List<Integer> exitCodes, List<String> outputs) {
    public boolean allPassed() {
      return exitCodes.stream().allMatch(c -> c == 0);
    }
  }

  private static final long GRACE_SECONDS = 10;
  private static final Duration TICK = Duration.ofMillis(50);

  private LocalRanks() {}

  /** This rank's environment and store, as {@link #run} set them up. */
  public static WorkerEnvironment worker() {
    Map<String, String> env = System.getenv();
    int rank = Integer.parseInt(env.get(WorkerEnvironment.RANK));
    int world = Integer.parseInt(env.get(WorkerEnvironment.WORLD_SIZE));
    int local = Integer.parseInt(env.getOrDefault(WorkerEnvironment.LOCAL_RANK, "" + rank));
    int localWorld =
        Integer.parseInt(env.getOrDefault(WorkerEnvironment.LOCAL_WORLD_SIZE, "" + world));
    Path file = Path.of(env.get(STORE_FILE));
    return new WorkerEnvironment(
        rank,
        world,
        local,
        localWorld,
        rank / localWorld,
        0,
        InitMethod.parse(file.toUri().toString()));
  }

  /** The store {@link #run} made for the ranks. */
  public static FileStore store(Duration timeout) {
    return FileStore.open(Path.of(System.getenv(STORE_FILE)), timeout);
  }

  /**
   * Runs {@code mainClass args} in {@code ranks} JVMs with this JVM's java and classpath, waits up
   * to {@code timeout}, and returns their exit codes and output (stdout and stderr together).
   */
  public static Result run(
      int ranks, String mainClass, List<String> args, List<String> jvmArgs, Duration timeout)
      throws IOException, InterruptedException {
    return run(ranks, mainClass, args, jvmArgs, timeout, Map.of());
  }

  /**
   * As above, with {@code extraEnv} added to every rank's environment; {@code {rank}}, {@code
   * {rank/K}} and {@code {rank%K}} in a value are replaced ({@link #withRank}: {@code
   * DDP4J_HOST_ID=host{rank}} makes every rank look like a host of its own).
   */
  public static Result run(
      int ranks,
      String mainClass,
      List<String> args,
      List<String> jvmArgs,
      Duration timeout,
      Map<String, String> extraEnv)
      throws IOException, InterruptedException {
    return run(ranks, mainClass, args, jvmArgs, timeout, r -> extraEnv);
  }

  /** As above, with each rank's additions of its own ({@code envOfRank.apply(rank)}). */
  public static Result run(
      int ranks,
      String mainClass,
      List<String> args,
      List<String> jvmArgs,
      Duration timeout,
      java.util.function.IntFunction<Map<String, String>> envOfRank)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("ddp4j-ranks-");
    try {
      String java = ProcessHandle.current().info().command().orElse("java");
      ChildProcesses<Process> procs = new ChildProcesses<>(p -> p);
      List<Path> logs = new ArrayList<>();
      try {
        for (int r = 0; r < ranks; r++) {
          List<String> cmd = new ArrayList<>();
          cmd.add(java);
          cmd.addAll(jvmArgs);
          cmd.add("-cp");
          cmd.add(System.getProperty("java.class.path"));
          cmd.add(mainClass);
          cmd.addAll(args);
          Path log = dir.resolve("rank" + r + ".log");
          ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
          pb.redirectOutput(log.toFile());
          Map<String, String> env = pb.environment();
          env.put(WorkerEnvironment.RANK, Integer.toString(r));
          env.put(WorkerEnvironment.WORLD_SIZE, Integer.toString(ranks));
          env.put(WorkerEnvironment.LOCAL_RANK, Integer.toString(r));
          env.put(WorkerEnvironment.LOCAL_WORLD_SIZE, Integer.toString(ranks));
          env.put(STORE_FILE, dir.resolve("store").toString());
          for (Map.Entry<String, String> e : envOfRank.apply(r).entrySet()) {
            env.put(e.getKey(), withRank(e.getValue(), r));
          }
          procs.add(pb.start());
          logs.add(log);
        }
        List<Process> stopped = waitAll(procs, timeout);
        List<Integer> codes = new ArrayList<>();
        List<String> outs = new ArrayList<>();
        List<Process> all = procs.children();
        for (int r = 0; r < ranks; r++) {
          codes.add(all.get(r).exitValue());
          outs.add(
              Files.readString(logs.get(r))
                  + (stopped.contains(all.get(r))
                      ? "# LocalRanks: rank " + r + " was still running, stopped\n"
                      : ""));
        }
        return new Result(codes, outs);
      } finally {
        procs.stopAll(Duration.ZERO);
      }
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * {@code value} with {@code {rank}} replaced by the rank, {@code {rank/K}} by rank / K and {@code
   * {rank%K}} by rank mod K (K ranks per fake host: {@code DDP4J_HOST_ID=host{rank/2}}, {@code
   * LOCAL_RANK={rank%2}}).
   */
  static String withRank(String value, int rank) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\{rank(?:([/%])(\\d+))?}").matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      int v = rank;
      if (m.group(1) != null) {
        int k = Integer.parseInt(m.group(2));
        v = m.group(1).equals("/") ? rank / k : rank % k;
      }
      m.appendReplacement(out, Integer.toString(v));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * Waits until every rank exited or {@code timeout} passed; once one rank failed the others get
   * {@value #GRACE_SECONDS} s to end on their own (their own timeouts name the missing rank). Then
   * stops the rest and returns them.
   */
  private static List<Process> waitAll(ChildProcesses<Process> procs, Duration timeout) {
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    ChildProcesses.Ending<Process> end = procs.await(TICK, timeout);
    long graceEndNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACE_SECONDS);
    while (end.stopped().isEmpty() && !end.running().isEmpty()) {
      long leftNs = Math.min(deadlineNs, graceEndNs) - System.nanoTime();
      end = procs.await(TICK, Duration.ofNanos(Math.max(0, leftNs)));
    }
    procs.stopAll(Duration.ZERO);
    return end.running();
  }
}
