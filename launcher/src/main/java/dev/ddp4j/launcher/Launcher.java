package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs a job on this node: hosts or joins the store (with {@link NodeRendezvous} when there are
 * several nodes), starts the worker group, restarts it up to --max-restarts times, and returns the
 * exit status (0 all workers succeeded, 1 the job failed). A shutdown hook stops the workers when
 * the launcher is signalled.
 */
final class Launcher {

  private final LaunchConfig c;
  private final PrintStream log;
  private volatile WorkerGroup current;
  private volatile StoreServer singleNodeServer;
  private volatile StoreServer.Reservation singleNodePort;
  private volatile boolean shuttingDown;

  Launcher(LaunchConfig c, PrintStream log) {
    this.c = c;
    this.log = log;
  }

  int run() {
    if (c.gpus() != null && c.gpus().note() != null) {
      log.println("[launcher] " + c.gpus().note());
    }
    Thread hook = new Thread(this::onSignal, "ddp4j-launcher-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return c.isMultiNode() ? runMultiNode() : runSingleNode();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook is running
      }
    }
  }

  private int runSingleNode() {
    StoreAddress a = c.store();
    try {
      for (int attempt = 0; ; attempt++) {
        InitMethod store = reserveSingleNodeStore(a);
        GroupOutcome o =
            runAttempt(0, attempt, store, () -> Optional.empty(), this::serveSingleNodeStore);
        int stopped = stopCurrent();
        closeSingleNodeStore(a);
        if (o.kind() == GroupOutcome.Kind.SUCCEEDED) {
          return 0;
        }
        if (o.kind() == GroupOutcome.Kind.FAILED && attempt < c.maxRestarts() && !shuttingDown) {
          log.print(
              FailureReport.format(o, stopped, attempt).replace("job failed", "group failed"));
          log.println(
              "[launcher] restarting the worker group (restart "
                  + (attempt + 1)
                  + " of "
                  + c.maxRestarts()
                  + ")");
          continue;
        }
        log.print(FailureReport.format(o, stopped, attempt));
        return 1;
      }
    } finally {
      stopCurrent();
      closeSingleNodeStore(a);
    }
  }

  /**
   * Every node runs the same rounds: a worker failure anywhere ends the round on every node and,
   * while restarts remain, all of them start the next round together (torchrun's elastic agent
   * restarts the whole job the same way, minus the elasticity).
   */
  private int runMultiNode() {
    try (NodeRendezvous rdzv = NodeRendezvous.join(c, log)) {
      for (int round = 0; ; round++) {
        if (round > 0) {
          rdzv.startRound(round);
        }
        boolean last = round >= c.maxRestarts();
        GroupOutcome o =
            runAttempt(rdzv.nodeRank(), round, rdzv.workerStore(), rdzv::peerProblem, () -> {});
        int stopped = stopCurrent();
        String report;
        if (o.kind() == GroupOutcome.Kind.SUCCEEDED) {
          Optional<String> problem = rdzv.finishSucceeded(last);
          if (problem.isEmpty()) {
            return 0;
          }
          report = "[launcher] job failed: " + problem.get() + "\n";
        } else {
          report = FailureReport.format(o, stopped, round);
          if (o.kind() == GroupOutcome.Kind.FAILED) {
            rdzv.publishFailure(report, last);
          }
        }
        boolean restartable = o.kind() == GroupOutcome.Kind.FAILED || rdzv.peerFailed();
        if (!last && restartable && !shuttingDown) {
          log.print(report.replace("job failed", "round " + round + " failed"));
          log.println(
              "[launcher] node "
                  + rdzv.nodeRank()
                  + " restarting the job with every node (restart "
                  + (round + 1)
                  + " of "
                  + c.maxRestarts()
                  + ")");
          continue;
        }
        log.print(report);
        return 1;
      }
    }
  }

  private GroupOutcome runAttempt(
      int nodeRank,
      int attempt,
      InitMethod store,
      java.util.function.Supplier<Optional<String>> peers,
      Runnable afterSpawn) {
    List<WorkerSpec> specs = new ArrayList<>();
    int n = c.nprocPerNode();
    for (int local = 0; local < n; local++) {
      specs.add(new WorkerSpec(nodeRank * n + local, local, n * c.nnodes(), n, nodeRank, attempt));
    }
    if (shuttingDown) {
      return GroupOutcome.stopped("the launcher was signalled");
    }
    boolean anyNuma = java.util.Arrays.stream(c.numaNodes()).anyMatch(node -> node >= 0);
    Optional<Path> numactl =
        anyNuma ? NumaBinding.findNumactl(Settings.process().text("PATH", null)) : Optional.empty();
    current = WorkerGroup.start(c, specs, store, numactl);
    afterSpawn.run();
    return current.await(
        c.monitorInterval(),
        () ->
            shuttingDown
                ? Optional.of("the launcher was signalled; stopped every worker")
                : peers.get());
  }

  private int stopCurrent() {
    WorkerGroup g = current;
    return g == null ? 0 : g.stopAll(WorkerGroup.STOP_GRACE);
  }

  /**
   * Binds the store's port without starting the server: workers are spawned first and the server
   * (Netty) starts while their JVMs boot, off the path to the first worker; their connections wait
   * in the backlog until then.
   */
  private InitMethod reserveSingleNodeStore(StoreAddress a) {
    if (a.isFile()) {
      deleteQuietly(a.file());
      return a.toInitMethod(0);
    }
    singleNodePort = StoreServer.reserve(c.storeBindAll() ? "0.0.0.0" : a.host(), a.port());
    return a.toInitMethod(singleNodePort.port());
  }

  private void serveSingleNodeStore() {
    StoreServer.Reservation r = singleNodePort;
    if (r != null) {
      singleNodeServer = r.serve(c.secret());
      singleNodePort = null;
    }
  }

  private void closeSingleNodeStore(StoreAddress a) {
    StoreServer.Reservation r = singleNodePort;
    singleNodePort = null;
    if (r != null) {
      r.close();
    }
    StoreServer s = singleNodeServer;
    singleNodeServer = null;
    if (s != null) {
      s.close();
    }
    if (a.isFile()) {
      deleteQuietly(a.file());
    }
  }

  /** SIGINT/SIGTERM: stop the workers before the JVM exits. */
  private void onSignal() {
    shuttingDown = true;
    WorkerGroup g = current;
    if (g != null) {
      // The main thread may be stopping them too; both calls are safe and the JVM waits for this
      // one.
      g.stopAll(WorkerGroup.STOP_GRACE);
      log.println("[launcher] signalled: stopped every worker");
    }
    StoreServer s = singleNodeServer;
    if (s != null) {
      s.close();
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // a stale file is reported by the store itself when it cannot be used
    }
  }
}
