package dev.ddp4j.bench.store;

import dev.ddp4j.collectives.store.StoreServer;

/**
 * A store server in a process of its own, as the launcher hosts it: prints {@code port=N} once it
 * serves, and serves until its stdin closes, then prints the CPU time it used. Arguments: the
 * secret.
 */
public final class StoreServerMain {

  /** CPU time this process has used, user and system, in seconds. */
  static double cpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  private StoreServerMain() {}

  public static void main(String[] args) throws Exception {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, args[0])) {
      System.out.println("port=" + server.port());
      System.out.flush();
      while (System.in.read() >= 0) {
        // serve until the bench closes our stdin
      }
      if (Boolean.getBoolean("bench.threadCpu")) {
        System.err.print("store process, cpu per thread:\n" + ThreadCpu.table());
      }
      System.out.printf("server cpu %.3f s%n", cpuSeconds());
      System.out.flush();
    }
  }
}
