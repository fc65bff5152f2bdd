package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.testing.RankProcessMain;
import dev.ddp4j.testing.TypedValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Runs on every rank of a multi-process test: every collective, dtype and op over sizes 0, 1, odd,
 * not divisible by the rank count and several slots long, in place and out of place, over every
 * storage, each checked against the sequential reference every rank computes from the same seeds.
 * Args: {@code quick} runs a subset (for the socket transport); {@code big} adds a 12 MiB and a 64
 * MiB all-reduce; {@code mixed} gives each rank a different storage in the same collective (heap
 * arrays on some ranks, native memory on others). Prints how many all-reduces read peers' buffers
 * with cross-memory attach.
 */
public final class CorrectnessScenario implements RankProcessMain.RankScenario {

  private int caseId;
  private boolean mixed; // ranks use different storages in one collective (heap and native)
  private int rank;

  @Override
  public void run(ProcessGroup pg, String[] args) {
    boolean quick = List.of(args).contains("quick");
    boolean big = List.of(args).contains("big");
    mixed = List.of(args).contains("mixed");
    int n = pg.size();
    rank = pg.rank();
    long[] sizes =
        quick
            ? new long[] {0, 1, 3L * n + 1, 40_001}
            : new long[] {0, 1, 7, 3L * n + 1, 1000, 40_001};
    for (DataType type : DataType.values()) {
      for (ReduceOp op : ReduceOp.values()) {
        for (long count : sizes) {
          allReduce(pg, type, op, (int) count, caseId % 2 == 0);
        }
        reduceScatter(pg, type, op, quick ? 5 : 1 + caseId % 3000);
      }
      for (int root = 0; root < n; root++) {
        broadcast(pg, type, root, root == 0 ? 40_001 : 3 * n + 1);
      }
      allGather(pg, type, 0);
      allGather(pg, type, 7);
      allGather(pg, type, quick ? 9 : 20_000);
    }
    inFlight(pg);
    pg.barrier().await();
    if (big) {
      bigAllReduce(pg, 12 << 20); // inside the default cross-memory-attach window (8-16 MiB)
      bigAllReduce(pg, 64 << 20);
    }
    if (pg instanceof CpuProcessGroup) {
      System.out.println(
          "rank "
              + pg.rank()
              + " cross-memory all-reduces: "
              + ((CpuProcessGroup) pg).crossMemoryAllReduces());
    }
    System.out.println("rank " + pg.rank() + " passed " + caseId + " cases");
  }

  private HostBuffer.Storage storage() {
    return HostBuffer.Storage.values()[(caseId + (mixed ? rank : 0)) % 3];
  }

  private double[][] inputs(DataType type, int n, int count) {
    double[][] in = new double[n][];
    for (int r = 0; r < n; r++) {
      in[r] = TypedValues.random(type, count, new Random(caseId * 1000L + r));
    }
    return in;
  }

  private void allReduce(ProcessGroup pg, DataType type, ReduceOp op, int count, boolean inPlace) {
    caseId++;
    int n = pg.size();
    double[][] in = inputs(type, n, count);
    HostBuffer input = TypedValues.buffer(type, in[pg.rank()], storage());
    HostBuffer output = inPlace ? input : TypedValues.buffer(type, new double[count], storage());
    pg.allReduce(input, output, op).await();
    double[] got = TypedValues.read(output);
    double[] column = new double[n];
    for (int i = 0; i < count; i++) {
      for (int r = 0; r < n; r++) {
        column[r] = in[r][i];
      }
      assertThat(got[i])
          .as("allReduce %s %s count %d element %d (case %d)", type, op, count, i, caseId)
          .isEqualTo(TypedValues.reference(type, op, column));
    }
    if (!inPlace) {
      assertThat(TypedValues.read(input)).as("input left unchanged").isEqualTo(in[pg.rank()]);
    }
  }

  private void reduceScatter(ProcessGroup pg, DataType type, ReduceOp op, int block) {
    caseId++;
    int n = pg.size();
    double[][] in = inputs(type, n, block * n);
    HostBuffer input = TypedValues.buffer(type, in[pg.rank()], storage());
    HostBuffer output = TypedValues.buffer(type, new double[block], storage());
    pg.reduceScatter(input, output, op).await();
    double[] got = TypedValues.read(output);
    double[] column = new double[n];
    for (int i = 0; i < block; i++) {
      int at = pg.rank() * block + i;
      for (int r = 0; r < n; r++) {
        column[r] = in[r][at];
      }
      assertThat(got[i])
          .as("reduceScatter %s %s block %d element %d", type, op, block, i)
          .isEqualTo(TypedValues.reference(type, op, column));
    }
  }

  private void broadcast(ProcessGroup pg, DataType type, int root, int count) {
    caseId++;
    double[][] in = inputs(type, pg.size(), count);
    HostBuffer buffer = TypedValues.buffer(type, in[pg.rank()], storage());
    pg.broadcast(buffer, root).await();
    assertThat(TypedValues.read(buffer)).as("broadcast %s from %d", type, root).isEqualTo(in[root]);
  }

  private void allGather(ProcessGroup pg, DataType type, int block) {
    caseId++;
    int n = pg.size();
    double[][] in = inputs(type, n, block);
    HostBuffer input = TypedValues.buffer(type, in[pg.rank()], storage());
    HostBuffer output = TypedValues.buffer(type, new double[block * n], storage());
    pg.allGather(input, output).await();
    double[] got = TypedValues.read(output);
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < block; i++) {
        assertThat(got[r * block + i])
            .as("allGather %s block of rank %d", type, r)
            .isEqualTo(in[r][i]);
      }
    }
  }

  /**
   * Ten collectives in flight at once complete in issue order with the right results, run by the
   * progress thread while the caller waits on a future.
   */
  private void inFlight(ProcessGroup pg) {
    int n = pg.size();
    List<Work> works = new ArrayList<>();
    List<float[]> buffers = new ArrayList<>();
    for (int k = 0; k < 10; k++) {
      float[] b = new float[1000 + k * 5000];
      java.util.Arrays.fill(b, pg.rank() + k);
      buffers.add(b);
      works.add(pg.allReduce(HostBuffer.of(b), ReduceOp.SUM));
    }
    // Nobody awaits: the progress thread must run them (a future does not help run the queue).
    try {
      works.get(9).toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("collectives nobody awaited did not complete", e);
    }
    for (int k = 9; k >= 0; k--) {
      works.get(k).await();
      for (int j = 0; j < k; j++) {
        assertThat(works.get(j).isCompleted()).as("work %d done before %d", j, k).isTrue();
      }
    }
    for (int k = 0; k < 10; k++) {
      float want = n * (n - 1) / 2f + n * k;
      for (float v : buffers.get(k)) {
        assertThat(v).isEqualTo(want);
      }
      assertThat(works.get(k).sequenceNumber()).isEqualTo(works.get(0).sequenceNumber() + k);
    }
  }

  /** {@code bytes} of floats: values from a formula, so no reference arrays are needed. */
  private void bigAllReduce(ProcessGroup pg, int bytes) {
    formulaAllReduce(
        pg, java.nio.ByteBuffer.allocateDirect(bytes).order(java.nio.ByteOrder.nativeOrder()));
  }

  /**
   * All-reduces (sum) the floats filling {@code mem}, each rank's from a formula, and checks every
   * element against the formula's sum over ranks.
   */
  static void formulaAllReduce(ProcessGroup pg, java.nio.ByteBuffer mem) {
    int count = mem.capacity() / 4;
    String what = (mem.capacity() >> 20) + " MiB allReduce";
    java.nio.FloatBuffer f = mem.asFloatBuffer();
    for (int i = 0; i < count; i++) {
      f.put(i, (i % 13) + pg.rank() * 0.5f);
    }
    pg.allReduce(HostBuffer.of(mem, DataType.FLOAT32), ReduceOp.SUM).await();
    int n = pg.size();
    for (int i = 0; i < count; i++) {
      float want = n * (i % 13) + 0.5f * (n * (n - 1) / 2f);
      if (f.get(i) != want) {
        throw new AssertionError(what + " element " + i + ": " + f.get(i) + " != " + want);
      }
    }
    System.out.println("rank " + pg.rank() + " " + what + " ok");
  }
}
