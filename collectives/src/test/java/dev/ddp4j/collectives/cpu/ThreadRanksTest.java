package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.testing.InMemoryStore;
import dev.ddp4j.testing.TypedValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Ranks as threads of this JVM, joined through real shared-memory files (or real sockets): a quick
 * check of the executor; {@link MultiProcessCollectivesTest} runs the same over processes.
 */
class ThreadRanksTest {

  static <T> List<T> onRanks(int n, Map<String, String> env, Function<ProcessGroup, T> body)
      throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<T>> results = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        int rank = r;
        results.add(
            pool.submit(
                () -> {
                  WorkerEnvironment w =
                      new WorkerEnvironment(rank, n, rank, n, 0, 0, InitMethod.tcp("127.0.0.1", 1));
                  try (ProcessGroup pg =
                      CpuProcessGroup.create(
                          w,
                          store,
                          Duration.ofSeconds(20),
                          CpuGroupOptions.from(dev.ddp4j.spi.Settings.of(env)),
                          "threads")) {
                    return body.apply(pg);
                  }
                }));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : results) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void shouldAllReduceAcrossThreeThreadRanksOverSharedMemory() throws Exception {
    checkAllReduce(3, Map.of());
  }

  @Test
  void shouldAllReduceAcrossTwoThreadRanksOverSockets() throws Exception {
    checkAllReduce(2, Map.of("DDP4J_SHM_DISABLE", "1"));
  }

  private void checkAllReduce(int n, Map<String, String> env) throws Exception {
    int count = 100_003;
    List<double[]> inputs = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      inputs.add(TypedValues.random(DataType.FLOAT32, count, new Random(r)));
    }
    List<double[]> got =
        onRanks(
            n,
            env,
            pg -> {
              HostBuffer b =
                  TypedValues.buffer(
                      DataType.FLOAT32, inputs.get(pg.rank()), HostBuffer.Storage.ARRAY);
              pg.allReduce(b, ReduceOp.SUM).await();
              return TypedValues.read(b);
            });
    for (int i = 0; i < count; i++) {
      double[] column = new double[n];
      for (int r = 0; r < n; r++) {
        column[r] = inputs.get(r)[i];
      }
      double want = TypedValues.reference(DataType.FLOAT32, ReduceOp.SUM, column);
      for (int r = 0; r < n; r++) {
        assertThat(got.get(r)[i]).as("rank %d element %d", r, i).isEqualTo(want);
      }
    }
  }
}
