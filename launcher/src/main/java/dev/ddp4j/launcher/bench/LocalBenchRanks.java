package dev.ddp4j.launcher.bench;

import dev.ddp4j.ConfigException;
import dev.ddp4j.collectives.process.ChildProcesses;
import dev.ddp4j.launcher.WorkerCommand;
import dev.ddp4j.spi.BackendProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The rank JVMs of a bench on this machine ({@code bench} and {@code bench ddp}): each started with
 * the launcher's own java, joined through a file store in a temporary folder, and awaited; when one
 * fails or runs past its limit the others are stopped ({@link ChildProcesses}), and the folder is
 * removed whatever happens.
 */
final class LocalBenchRanks {

  /** Starts rank {@code rank}'s JVM, its store under {@code store}. */
  interface Starter {
    Process start(int rank, Path store) throws IOException;
  }

  /** How long the other ranks get to exit on SIGTERM once one failed. */
  private static final Duration STOP_GRACE = Duration.ofSeconds(3);

  private LocalBenchRanks() {}

  /**
   * Fails with one line, before any rank starts, when {@code backend} cannot run on this machine
   * (e.g. {@code cuda} without a GPU), naming why and the flag that fixes it.
   */
  static void requireUsable(String command, String backend) {
    for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
      if (p.name().equals(backend)) {
        p.unavailableReason()
            .ifPresent(
                why -> {
                  throw new ConfigException(
                      command
                          + " --backend "
                          + backend
                          + " cannot run here: "
                          + why
                          + (backend.equals("cpu") || why.contains("fix:")
                              ? ""
                              : " (expected: a machine with an NVIDIA GPU and driver, or --backend cpu)"));
                });
        return;
      }
    }
    throw new ConfigException(
        command + " --backend " + backend + ": no such backend (expected: cpu, cuda or nccl)");
  }

  /**
   * Runs {@code ranks} ranks and returns 0 when every one exited 0 within {@code limit}, else 1
   * (saying on stderr which ranks were stopped when it ran out).
   */
  static int run(String prefix, int ranks, Duration limit, Starter starter)
      throws IOException, InterruptedException {
    Path store = Files.createTempDirectory(prefix);
    ChildProcesses<Process> workers = new ChildProcesses<>(p -> p);
    try {
      for (int r = 0; r < ranks; r++) {
        workers.add(starter.start(r, store));
      }
      ChildProcesses.Ending<Process> end = workers.await(Duration.ofSeconds(1), limit);
      if (end.stopped().isPresent()) {
        List<Process> all = workers.children();
        System.err.println(
            prefix
                + ": "
                + end.stopped().get()
                + "; stopping ranks "
                + end.running().stream().map(all::indexOf).toList()
                + ", which had not finished");
      }
      return end.succeeded() ? 0 : 1;
    } finally {
      workers.stopAll(STOP_GRACE);
      try (var files = Files.walk(store)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * The command line up to the arguments: the launcher's java, the parallel collector, the worker
   * JVM options every launched worker gets, {@code jvmArgs}, the class path and {@code mainClass}.
   */
  static List<String> javaCommand(List<String> jvmArgs, String classPath, String mainClass) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:+UseParallelGC");
    cmd.addAll(WorkerCommand.WORKER_JVM_OPTIONS);
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(mainClass);
    return cmd;
  }

  /**
   * Sets rank {@code rank} of {@code ranks} on {@code backend}, all on this node, in {@code pb}.
   */
  static ProcessBuilder environment(
      ProcessBuilder pb, int rank, int ranks, String backend, Path store) {
    pb.environment().put("RANK", Integer.toString(rank));
    pb.environment().put("LOCAL_RANK", Integer.toString(rank));
    pb.environment().put("WORLD_SIZE", Integer.toString(ranks));
    pb.environment().put("LOCAL_WORLD_SIZE", Integer.toString(ranks));
    pb.environment().put("DDP4J_BACKEND", backend);
    pb.environment().put("DDP4J_INIT_METHOD", store.resolve("store").toUri().toString());
    return pb;
  }
}
