package dev.ddp4j.launcher.bench;

import dev.ddp4j.ConfigException;
import dev.ddp4j.Ddp;
import dev.ddp4j.InitMethod;
import dev.ddp4j.InitOptions;
import dev.ddp4j.collectives.process.ChildProcesses;
import dev.ddp4j.collectives.store.StoreSecret;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.launcher.WorkerCommand;
import dev.ddp4j.launcher.WorkerSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The rank JVMs of a bench on this machine ({@code bench} and {@code bench ddp}), started the way
 * the launcher starts its workers ({@link WorkerCommand}: the worker environment, and {@code
 * WorkerBootstrap} with its watchdog, so a killed bench leaves no rank behind), and awaited; when
 * one fails or runs past its limit the others are stopped ({@link ChildProcesses}).
 *
 * <p>The ranks meet through a TCP store this JVM hosts on a free loopback port with a random
 * secret, as a single-node launcher's workers do, rather than a file store in a temporary folder:
 * one store path for every rank JVM ddp4j starts, nothing left on disk, and ranks waiting on the
 * store fail as soon as the bench is gone instead of waiting out their timeout.
 */
final class LocalBenchRanks {

  /**
   * What every rank runs.
   *
   * @param backend the backend the ranks use ({@code DDP4J_BACKEND})
   * @param jvmArgs options for every rank JVM, after the bench's own
   * @param classPath the rank JVMs' class path
   * @param mainClass run by {@code WorkerBootstrap}
   * @param args the main class's arguments
   */
  record Ranks(
      String backend,
      List<String> jvmArgs,
      String classPath,
      String mainClass,
      List<String> args) {}

  /** How long the other ranks get to exit on SIGTERM once one failed. */
  private static final Duration STOP_GRACE = Duration.ofSeconds(3);

  /** Timings want no G1 pauses or concurrent marking threads among the ranks' few cores. */
  private static final List<String> BENCH_JVM_OPTIONS = List.of("-XX:+UseParallelGC");

  private static final String STORE_HOST = "127.0.0.1";

  private LocalBenchRanks() {}

  /**
   * Fails with one line, before any rank starts, when {@code backend} cannot run on this machine
   * (e.g. {@code cuda} without a GPU): the line the ranks' {@link Ddp#init()} would print, naming
   * {@code otherChoice} as the fix.
   */
  static void requireUsable(String command, String backend, String otherChoice) {
    try {
      Ddp.selectBackend(backend, otherChoice);
    } catch (ConfigException e) {
      throw new ConfigException(command + ": " + e.getMessage());
    }
  }

  /**
   * Runs {@code count} ranks, rank r's stdout to {@code stdout.apply(r)} (stderr to the console),
   * and returns 0 when every one exited 0 within {@code limit}, else 1 (saying on stderr which
   * ranks were stopped when it ran out).
   */
  static int run(
      String name,
      int count,
      Duration limit,
      Ranks ranks,
      IntFunction<ProcessBuilder.Redirect> stdout)
      throws IOException {
    String secret = StoreSecret.random();
    List<String> jvmArgs = new ArrayList<>(BENCH_JVM_OPTIONS);
    jvmArgs.addAll(ranks.jvmArgs());
    List<String> argv =
        WorkerCommand.argv(List.of(), jvmArgs, ranks.classPath(), ranks.mainClass(), ranks.args());
    ChildProcesses<Process> workers = new ChildProcesses<>(p -> p);
    StoreServer store = StoreServer.start(STORE_HOST, 0, secret);
    try {
      InitMethod init = InitMethod.tcp(STORE_HOST, store.port());
      for (int r = 0; r < count; r++) {
        ProcessBuilder pb = new ProcessBuilder(argv).inheritIO().redirectOutput(stdout.apply(r));
        WorkerCommand.environment(pb.environment(), WorkerSpec.singleNode(r, count), init, secret);
        pb.environment().put(InitOptions.BACKEND_VAR, ranks.backend());
        workers.add(pb.start());
      }
      ChildProcesses.Ending<Process> end = workers.await(Duration.ofSeconds(1), limit);
      if (end.stopped().isPresent()) {
        List<Process> all = workers.children();
        System.err.println(
            name
                + ": "
                + end.stopped().get()
                + "; stopping ranks "
                + end.running().stream().map(all::indexOf).toList()
                + ", which had not finished");
      }
      return end.succeeded() ? 0 : 1;
    } finally {
      workers.stopAll(STOP_GRACE);
      store.close();
    }
  }
}
