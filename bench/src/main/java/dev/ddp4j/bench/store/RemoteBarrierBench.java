package dev.ddp4j.bench.store;

import dev.ddp4j.collectives.store.StoreServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
      double s = BarrierClients.run(k, port);
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
        BarrierClients.run(256, warm.port());
      }
      long now = jit.getTotalCompilationTime();
      if (round >= 4 && now - before < 10) {
        break;
      }
      before = now;
    }
  }
}
