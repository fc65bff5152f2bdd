package dev.ddp4j.bench.store;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.StoreBarrier;
import dev.ddp4j.collectives.store.TcpStoreClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * K clients of one store as K threads of this JVM, each with its own connection, through one
 * barrier: the barrier benches' one client loop.
 */
final class BarrierClients {

  private BarrierClients() {}

  /**
   * Starts {@code k} client threads, releases them at once and returns the seconds until the last
   * has connected (authenticating), passed the barrier {@code "bench"} of {@code k} ranks on the
   * store at {@code port}, and returned; closing is not timed. With {@code -Dbench.phases=true} it
   * prints when the clients connected and were released, and the window's monotonic times.
   */
  static double run(int k, int port) throws InterruptedException {
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
    Arrays.sort(sorted);
    return (sorted[Math.min(sorted.length - 1, sorted.length * pct / 100)] - t0) / 1e9;
  }
}
