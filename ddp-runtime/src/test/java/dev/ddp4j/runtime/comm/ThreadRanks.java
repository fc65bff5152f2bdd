package dev.ddp4j.runtime.comm;

import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs one task per rank, each on its own thread over a real cpu group (shared memory, sockets).
 */
final class ThreadRanks {

  /** One rank's work. */
  interface Task<T> {
    T run(int rank, ProcessGroup group) throws Exception;
  }

  private ThreadRanks() {}

  /** Runs {@code task} on {@code ranks} ranks and returns each rank's result, by rank. */
  static <T> List<T> run(int ranks, Task<T> task) throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<T>> runs = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        runs.add(
            pool.submit(
                () -> {
                  WorkerEnvironment w =
                      new WorkerEnvironment(
                          rank, ranks, rank, ranks, 0, 0, InitMethod.tcp("127.0.0.1", 1));
                  try (ProcessGroup group =
                      TestGroups.create(w, store, Duration.ofSeconds(60), Map.of())) {
                    return task.run(rank, group);
                  }
                }));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : runs) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
