package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.testing.ThreadRanks;
import dev.ddp4j.testing.TypedValues;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cpu group's reduce, gather, scatter and allToAll between thread ranks, over real
 * shared-memory rings or loopback sockets, against values computed here: every dtype, every op,
 * every root, sizes that are no power of two, messages longer than a transport piece.
 */
class CpuRootedCollectivesTest {

  private static ThreadRanks.Opener open(int shmDisabled, int channels) {
    Map<String, String> env =
        Map.of(
            "DDP4J_SHM_DISABLE",
            Integer.toString(shmDisabled),
            "DDP4J_NCHANNELS",
            Integer.toString(channels),
            "DDP4J_SHM_SLOT_BYTES",
            "4096");
    return (w, store, timeout) -> TestGroups.create(w, store, timeout, env);
  }

  /** Rank r's values for case {@code c}: the same on every rank that computes them. */
  private static double[] values(DataType type, int count, int rank, int c) {
    return TypedValues.random(type, count, new Random(31L * c + rank));
  }

  private static HostBuffer buffer(DataType type, double[] v) {
    return TypedValues.buffer(type, v, HostBuffer.Storage.NIO);
  }

  @ParameterizedTest(name = "{0} ranks, shm disabled: {1}, {2} channels")
  @CsvSource({"3, 0, 1", "5, 0, 2", "3, 1, 1", "2, 0, 1"})
  void shouldReduceEveryDtypeAndOpToEveryRoot(int n, int shmDisabled, int channels)
      throws Exception {
    ThreadRanks.runAll(
        n,
        Duration.ofSeconds(60),
        open(shmDisabled, channels),
        pg -> {
          int c = 0;
          for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
              int count = c % 3 == 0 ? 5_003 : 7;
              int root = c % n;
              double[] mine = values(type, count, pg.rank(), c);
              HostBuffer b = buffer(type, mine);
              pg.reduce(b, root, op).await();
              double[] got = TypedValues.read(b);
              if (pg.rank() == root) {
                for (int i = 0; i < count; i++) {
                  double[] column = new double[n];
                  for (int r = 0; r < n; r++) {
                    column[r] = values(type, count, r, c)[i];
                  }
                  assertThat(got[i])
                      .as("%s %s element %d at root %d", type, op, i, root)
                      .isEqualTo(TypedValues.reference(type, op, column));
                }
              } else {
                assertThat(got).as("a non-root's buffer is left unchanged").isEqualTo(mine);
              }
              c++;
            }
          }
          return null;
        });
  }

  @ParameterizedTest(name = "{0} ranks, shm disabled: {1}, {2} channels")
  @CsvSource({"3, 0, 1", "5, 0, 2", "3, 1, 2", "2, 1, 1"})
  void shouldGatherScatterAndAllToAllAtEveryRoot(int n, int shmDisabled, int channels)
      throws Exception {
    ThreadRanks.runAll(
        n,
        Duration.ofSeconds(60),
        open(shmDisabled, channels),
        pg -> {
          int rank = pg.rank();
          int c = 0;
          for (DataType type : List.of(DataType.FLOAT32, DataType.BFLOAT16, DataType.INT64)) {
            for (int block : new int[] {1, 3, 3_001}) {
              for (int root = 0; root < n; root++, c++) {
                // gather: output only on the root, null elsewhere
                HostBuffer out = rank == root ? buffer(type, new double[block * n]) : null;
                pg.gather(buffer(type, values(type, block, rank, c)), out, root).await();
                if (rank == root) {
                  double[] got = TypedValues.read(out);
                  for (int r = 0; r < n; r++) {
                    assertThat(java.util.Arrays.copyOfRange(got, r * block, (r + 1) * block))
                        .as("gather %s block %d at root %d", type, r, root)
                        .isEqualTo(values(type, block, r, c));
                  }
                }
                // scatter: input only on the root
                double[] whole = values(type, block * n, root, c);
                HostBuffer in = rank == root ? buffer(type, whole) : null;
                HostBuffer mine = buffer(type, new double[block]);
                pg.scatter(in, mine, root).await();
                assertThat(TypedValues.read(mine))
                    .as("scatter %s from root %d", type, root)
                    .isEqualTo(
                        java.util.Arrays.copyOfRange(whole, rank * block, (rank + 1) * block));
                if (rank == root) {
                  assertThat(TypedValues.read(in)).isEqualTo(whole);
                }
              }
              double[] send = values(type, block * n, rank, c);
              HostBuffer a2a = buffer(type, new double[block * n]);
              pg.allToAll(buffer(type, send), a2a).await();
              double[] got = TypedValues.read(a2a);
              for (int k = 0; k < n; k++) {
                double[] theirs = values(type, block * n, k, c);
                assertThat(java.util.Arrays.copyOfRange(got, k * block, (k + 1) * block))
                    .as("allToAll %s: rank %d's block %d", type, k, rank)
                    .isEqualTo(
                        java.util.Arrays.copyOfRange(theirs, rank * block, (rank + 1) * block));
              }
            }
          }
          return null;
        });
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"count", "root"})
  void shouldFailEveryRankOfAMismatchedReduceNamingBothCalls(String what) throws Exception {
    List<Object> out =
        ThreadRanks.run(
            2,
            Duration.ofSeconds(10),
            open(0, 1),
            (ProcessGroup pg) -> {
              boolean odd = pg.rank() == 1;
              int count = what.equals("count") && odd ? 2048 : 4096;
              int root = what.equals("root") && odd ? 1 : 0;
              Work w = pg.reduce(HostBuffer.of(new float[count]), root, ReduceOp.SUM);
              try {
                w.await();
                return "no error";
              } catch (CollectiveMismatchException e) {
                return e.getMessage();
              } catch (DdpException e) {
                return "other: " + e;
              }
            });
    for (int r = 0; r < 2; r++) {
      assertThat(String.valueOf(out.get(r)))
          .as("rank %d", r)
          .contains("reduce #0 of")
          .contains("on rank " + r)
          .contains("but rank " + (1 - r) + " called reduce");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"gather", "scatter", "allToAll"})
  void shouldRefuseBadShapesAndRootsWithTheRule(String op) throws Exception {
    ThreadRanks.runAll(
        2,
        Duration.ofSeconds(10),
        open(0, 1),
        pg -> {
          HostBuffer three = HostBuffer.of(new float[3]);
          HostBuffer five = HostBuffer.of(new float[5]);
          switch (op) {
            case "gather":
              assertThatThrownBy(() -> pg.gather(three, three, 2))
                  .hasMessage("gather: root 2 is not a rank (expected: 0 <= root < 2)");
              if (pg.rank() == 0) {
                assertThatThrownBy(() -> pg.gather(three, five, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expected: whole = part x 2 ranks = 6");
              }
              break;
            case "scatter":
              if (pg.rank() == 1) {
                assertThatThrownBy(() -> pg.scatter(five, three, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expected: whole = part x 2 ranks = 6");
              }
              break;
            default:
              assertThatThrownBy(() -> pg.allToAll(three, HostBuffer.of(new float[3])))
                  .hasMessageContaining("3 elements do not split into 2 blocks");
          }
          return null;
        });
  }
}
