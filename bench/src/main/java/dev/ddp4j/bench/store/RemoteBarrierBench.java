package dev.ddp4j.bench.store;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.StoreBarrier;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.collectives.store.TcpStoreClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * K clients connect (authenticating) and pass one barrier, with the store in a fresh JVM of its own
 * as the launcher hosts it, and the clients as K threads of this JVM, each with its own connection:
 * the server sees K independent authenticated connections, as from K workers. One measurement per
 * run (fresh server, fresh clients), so a run is as cold as a job's start.
 *
 * <p>Arguments: K. System properties: {@code bench.warmClients} (true: warm this JVM's client code
 * first, see {@link #warmClients}), {@code bench.serverClasspath} (default: this JVM's), {@code
 * bench.serverJvmArgs} (space-separated, e.g. to record a flight recording of the server).
 */
public final class RemoteBarrierBench {

  private RemoteBarrierBench() {}

  public static void main(String[] args) throws Exception {
    int k = Integer.parseInt(args[0]);
    if (Boolean.getBoolean("bench.warmClients")) {
      warmClients();
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + "/bin/java");
    String jvmArgs = System.getProperty("bench.serverJvmArgs", "").trim();
    if (!jvmArgs.isEmpty()) {
      cmd.addAll(List.of(jvmArgs.split(" +")));
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("bench.serverClasspath", System.getProperty("java.class.path")));
    cmd.add(StoreServerMain.class.getName());
    cmd.add("bench");
    Process server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      while (line != null && !line.startsWith("port=")) {
        line = out.readLine(); // e.g. the flight recorder's banner
      }
      if (line == null || !line.startsWith("port=")) {
        throw new IllegalStateException("the store process printed " + line + ", not port=N");
      }
      int port = Integer.parseInt(line.substring(5));
      double clientCpu0 = StoreServerMain.cpuSeconds();
      double s = barrier(k, port);
      double clientCpu = StoreServerMain.cpuSeconds() - clientCpu0;
      if (Boolean.getBoolean("bench.threadCpu")) {
        System.err.print(
            "client process (warm-up included), cpu per thread:\n" + ThreadCpu.table());
      }
      server.getOutputStream().close();
      String cpu = out.readLine();
      System.out.printf(
          "%d clients: connect + authenticate + one barrier in %.3f s (store in its own JVM; %s,"
              + " clients' cpu %.3f s)%n",
          k, s, cpu, clientCpu);
    } finally {
      server.getOutputStream().close();
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  /**
   * Runs the client code (connect, authenticate, barrier) against a private in-process server until
   * this JVM's JIT has nothing left to compile for it (a round adds under 10 ms of compilation; at
   * most 40 rounds), so that the measured run times neither this JVM's class loading nor its
   * compiler threads, which would share the two cores with the store: in a job each client is a
   * worker JVM of its own, on its own machine, not one of K threads of one JVM.
   */
  private static void warmClients() throws InterruptedException {
    java.lang.management.CompilationMXBean jit =
        java.lang.management.ManagementFactory.getCompilationMXBean();
    long before = jit.getTotalCompilationTime();
    for (int round = 0; round < 40; round++) {
      try (StoreServer warm = StoreServer.start("127.0.0.1", 0, "bench")) {
        barrier(256, warm.port());
      }
      long now = jit.getTotalCompilationTime();
      if (round >= 4 && now - before < 10) {
        break;
      }
      before = now;
    }
  }

  private static double barrier(int k, int port) throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(k);
    AtomicReference<Throwable> error = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    long[] connected = new long[k];
    long[] released = new long[k];
    for (int r = 0; r < k; r++) {
      int rank = r;
      Thread t =
          new Thread(
              null,
              () -> {
                Store s = null;
                try {
                  go.await();
                  s = TcpStoreClient.connect("127.0.0.1", port, "bench", Duration.ofSeconds(60));
                  connected[rank] = System.nanoTime();
                  StoreBarrier.await(s, "bench", rank, k, Duration.ofSeconds(60));
                  released[rank] = System.nanoTime();
                } catch (Throwable e) {
                  error.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
                // Closing, like a worker's work after the barrier, is not what is timed: wait
                // for the last release, so that no thread's close and exit share the cores with
                // the ranks still being released.
                try {
                  done.await(120, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                if (s != null) {
                  s.close();
                }
              },
              "client-" + r,
              256 * 1024);
      t.start();
      threads.add(t);
    }
    long t0 = System.nanoTime();
    go.countDown();
    if (!done.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException(k + " clients did not pass the barrier in 120 s");
    }
    long ns = System.nanoTime() - t0;
    for (Thread t : threads) {
      t.join();
    }
    if (error.get() != null) {
      throw new IllegalStateException("a client failed", error.get());
    }
    if (Boolean.getBoolean("bench.phases")) {
      System.out.printf(
          "  connected: p50 %.3f s, last %.3f s; released: first %.3f s, last %.3f s%n",
          at(connected, t0, 50),
          at(connected, t0, 100),
          at(released, t0, 0),
          at(released, t0, 100));
      // On Linux nanoTime is CLOCK_MONOTONIC: `perf record -k CLOCK_MONOTONIC` samples can be cut
      // to this window.
      System.out.printf("  window (monotonic s): %.6f %.6f%n", t0 / 1e9, (t0 + ns) / 1e9);
    }
    return ns / 1e9;
  }

  private static double at(long[] ns, long t0, int pct) {
    long[] sorted = ns.clone();
    java.util.Arrays.sort(sorted);
    return (sorted[Math.min(sorted.length - 1, sorted.length * pct / 100)] - t0) / 1e9;
  }
}
