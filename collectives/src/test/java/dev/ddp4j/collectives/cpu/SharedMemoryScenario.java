package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ddp4j.ConfigException;
import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.HostMemory;
import dev.ddp4j.testing.RankProcessMain;
import dev.ddp4j.testing.TypedValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * Runs on every rank of {@link SharedHostMemoryTest}: all-reduces over the group's shared host
 * memory ({@link ProcessGroup#allocateHost}), every dtype and op, sizes 0 to 64 MiB at element
 * offsets inside two allocations, in place and out of place, each checked against the sequential
 * reference; then collectives where some rank's buffer is not shared (they must not take the shared
 * path, and must still be right). Prints how many all-reduces read peers through the mappings.
 * Args: {@code mismatch} instead allocates different sizes on rank 0 and the others.
 */
public final class SharedMemoryScenario implements RankProcessMain.RankScenario {

  private static final long POOL_BYTES = (64L << 20) + 4096;

  private int caseId;

  @Override
  public void run(ProcessGroup pg, String[] args) throws IOException {
    if (List.of(args).contains("mismatch")) {
      long bytes = pg.rank() == 0 ? 100 : 200;
      Throwable e = catchThrowable(() -> pg.allocateHost(bytes, DataType.UINT8));
      assertThat(e)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("shared host memory allocation #0")
          .hasMessageContaining("same sizes in the same order");
      System.out.println("rank " + pg.rank() + " saw the allocation mismatch: " + e.getMessage());
      return;
    }
    HostBuffer pool = pg.allocateHost(POOL_BYTES, DataType.UINT8);
    HostBuffer second = pg.allocateHost(3 << 20, DataType.UINT8);
    assertThat(TypedValues.read(second.slice(0, 4096))).as("zeroed").containsOnly(0.0);
    try (var files = Files.list(Path.of("/dev/shm"))) {
      String mine = "ddp4j-" + ProcessHandle.current().pid() + "-";
      assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith(mine)))
          .as("files of this rank left linked once every rank mapped them")
          .isEmpty();
    }
    int n = pg.size();
    long[] counts = {0, 1, 7, 3L * n + 1, 1000, 40_001, 300_007};
    for (DataType type : DataType.values()) {
      for (ReduceOp op : ReduceOp.values()) {
        for (long count : counts) {
          allReduce(pg, pool, pool, type, op, (int) count);
          allReduce(pg, pool, second, type, op, (int) Math.min(count, 40_001));
        }
      }
    }
    long before = ((CpuProcessGroup) pg).sharedMemoryAllReduces();
    // A rank whose buffer lies outside shared memory (native, then heap): no rank reads in place.
    allReduceMixed(pg, pool, HostBuffer.Storage.ADDRESS);
    allReduceMixed(pg, pool, HostBuffer.Storage.ARRAY);
    assertThat(((CpuProcessGroup) pg).sharedMemoryAllReduces())
        .as("all-reduces in place though a rank's buffer was not shared")
        .isEqualTo(before);
    // 64 MiB of floats at the start of the pool
    CorrectnessScenario.formulaAllReduce(
        pg, pool.slice(0, 64L << 20).byteBuffer().order(java.nio.ByteOrder.nativeOrder()));
    System.out.println(
        "rank "
            + pg.rank()
            + " shared-memory all-reduces: "
            + ((CpuProcessGroup) pg).sharedMemoryAllReduces());
    System.out.println("rank " + pg.rank() + " passed " + caseId + " cases");
  }

  private double[][] inputs(DataType type, int n, int count) {
    double[][] in = new double[n][];
    for (int r = 0; r < n; r++) {
      in[r] = TypedValues.random(type, count, new Random(caseId * 1000L + r));
    }
    return in;
  }

  /** {@code count} elements at an offset that moves with the case, inside {@code pool}. */
  private HostBuffer place(HostBuffer pool, DataType type, int count, double[] values) {
    int e = type.sizeBytes();
    long at = (caseId * 8L) % 4096;
    HostBuffer slot = pool.slice(at, (long) count * e);
    HostBuffer typed = HostBuffer.of(slot.byteBuffer(), type);
    HostMemory.of(typed)
        .copyFrom(HostMemory.of(TypedValues.buffer(type, values, HostBuffer.Storage.NIO)));
    return typed;
  }

  private void allReduce(
      ProcessGroup pg,
      HostBuffer inPool,
      HostBuffer outPool,
      DataType type,
      ReduceOp op,
      int count) {
    caseId++;
    int n = pg.size();
    double[][] in = inputs(type, n, count);
    HostBuffer input = place(inPool, type, count, in[pg.rank()]);
    HostBuffer output = inPool == outPool ? input : place(outPool, type, count, new double[count]);
    pg.allReduce(input, output, op).await();
    check(TypedValues.read(output), in, type, op, count);
    if (input != output) {
      assertThat(TypedValues.read(input)).as("input left unchanged").isEqualTo(in[pg.rank()]);
    }
  }

  /** Rank 0 takes {@code storage} instead of shared memory for a 300 007-float all-reduce. */
  private void allReduceMixed(ProcessGroup pg, HostBuffer pool, HostBuffer.Storage storage) {
    caseId++;
    int count = 300_007;
    double[][] in = inputs(DataType.FLOAT32, pg.size(), count);
    HostBuffer buffer =
        pg.rank() == 0
            ? TypedValues.buffer(DataType.FLOAT32, in[0], storage)
            : place(pool, DataType.FLOAT32, count, in[pg.rank()]);
    pg.allReduce(buffer, ReduceOp.SUM).await();
    check(TypedValues.read(buffer), in, DataType.FLOAT32, ReduceOp.SUM, count);
  }

  private void check(double[] got, double[][] in, DataType type, ReduceOp op, int count) {
    double[] column = new double[in.length];
    for (int i = 0; i < count; i++) {
      for (int r = 0; r < in.length; r++) {
        column[r] = in[r][i];
      }
      assertThat(got[i])
          .as("allReduce %s %s count %d element %d (case %d)", type, op, count, i, caseId)
          .isEqualTo(TypedValues.reference(type, op, column));
    }
  }

  /**
   * Rank 1 never allocates: rank 0's allocation must fail within the group's timeout, naming rank
   * 1, instead of waiting on.
   */
  public static final class MissingRank implements RankProcessMain.RankScenario {
    @Override
    public java.time.Duration timeout() {
      return java.time.Duration.ofSeconds(3);
    }

    @Override
    public void run(ProcessGroup pg, String[] args) {
      if (pg.rank() == 1) {
        pg.store().get("missing/checked", java.time.Duration.ofSeconds(60));
        return;
      }
      long start = System.nanoTime();
      Throwable e = catchThrowable(() -> pg.allocateHost(1 << 20, DataType.FLOAT32));
      assertThat(e)
          .isInstanceOf(dev.ddp4j.DdpTimeoutException.class)
          .hasMessageContaining("rank 1 did not allocate it");
      assertThat(((dev.ddp4j.DdpTimeoutException) e).missingRanks()).containsExactly(1);
      assertThat((System.nanoTime() - start) / 1e9).as("seconds").isLessThan(30);
      pg.store().set("missing/checked", new byte[] {1});
      System.out.println("rank 0 saw the missing rank: " + e.getMessage());
    }
  }
}
