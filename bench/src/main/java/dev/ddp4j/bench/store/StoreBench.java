package dev.ddp4j.bench.store;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.StoreServer;
import dev.ddp4j.collectives.store.TcpStoreClient;
import java.time.Duration;
import java.util.Arrays;

/**
 * Store benchmark (not a test): p50/p99 latency of set and get from one client over loopback, then
 * the wall time for K clients to connect (with authentication) and pass one barrier. Run with
 * {@code bench/store-bench.sh [K...]}.
 */
public final class StoreBench {

  private StoreBench() {}

  public static void main(String[] args) throws Exception {
    int[] ks =
        args.length == 0
            ? new int[] {64, 512, 2048}
            : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    latency(20_000, 50_000);
    for (int k : ks) {
      barrier(k);
    }
  }

  private static void latency(int warmup, int ops) {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, "bench");
        Store s =
            TcpStoreClient.connect("127.0.0.1", server.port(), "bench", Duration.ofSeconds(30))) {
      byte[] value = new byte[64];
      for (int i = 0; i < warmup; i++) {
        s.set("k" + (i % 100), value);
        s.get("k" + (i % 100), Duration.ofSeconds(5));
      }
      long[] set = new long[ops];
      long[] get = new long[ops];
      for (int i = 0; i < ops; i++) {
        String key = "k" + (i % 100);
        long t0 = System.nanoTime();
        s.set(key, value);
        long t1 = System.nanoTime();
        s.get(key, Duration.ofSeconds(5));
        long t2 = System.nanoTime();
        set[i] = t1 - t0;
        get[i] = t2 - t1;
      }
      System.out.printf(
          "loopback, 64-byte values, %d ops each: set p50 %.1f us p99 %.1f us | get p50 %.1f us p99 %.1f us%n",
          ops, pct(set, 50), pct(set, 99), pct(get, 50), pct(get, 99));
    }
  }

  private static double pct(long[] ns, int p) {
    long[] sorted = ns.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) ((long) sorted.length * p / 100))] / 1000.0;
  }

  private static void barrier(int k) throws InterruptedException {
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, "bench")) {
      System.out.printf(
          "%d clients: connect + authenticate + one barrier in %.3f s (server and clients in one JVM)%n",
          k, BarrierClients.run(k, server.port()));
    }
  }
}
