package dev.ddp4j.testing;

import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Ranks as threads of this JVM over one {@link InMemoryStore}: each makes its group with {@code
 * open} (a real group of any backend over that store) and runs {@code body} on it, then closes it.
 * What a rank threw is its result, so a test can check every rank's error.
 */
public final class ThreadRanks {

  /** Makes rank {@code worker.rank()}'s group over {@code store}. */
  @FunctionalInterface
  public interface Opener {
    ProcessGroup open(WorkerEnvironment worker, InMemoryStore store, Duration timeout);
  }

  /** What a rank does with its group. */
  @FunctionalInterface
  public interface Body<T> {
    T run(ProcessGroup pg) throws Exception;
  }

  private ThreadRanks() {}

  /**
   * Runs {@code body} on {@code n} ranks; element {@code r} is rank r's return value, or what it
   * threw.
   */
  public static List<Object> run(int n, Duration timeout, Opener open, Body<?> body)
      throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<Object>> results = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        WorkerEnvironment w =
            new WorkerEnvironment(r, n, r, n, 0, 0, InitMethod.tcp("127.0.0.1", 1));
        results.add(
            pool.submit(
                () -> {
                  try (ProcessGroup pg = open.open(w, store, timeout)) {
                    return body.run(pg);
                  } catch (Exception | AssertionError e) {
                    return e;
                  }
                }));
      }
      List<Object> out = new ArrayList<>();
      for (Future<Object> f : results) {
        out.add(f.get(timeout.toSeconds() * 3 + 30, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /** {@link #run}, failing with the first rank's error, else every rank's value. */
  public static List<Object> runAll(int n, Duration timeout, Opener open, Body<?> body)
      throws Exception {
    List<Object> out = run(n, timeout, open, body);
    for (int r = 0; r < n; r++) {
      if (out.get(r) instanceof Throwable t) {
        throw new AssertionError("rank " + r + " failed: " + t, t);
      }
    }
    return out;
  }
}
