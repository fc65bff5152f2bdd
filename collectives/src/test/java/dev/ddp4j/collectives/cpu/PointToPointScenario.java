package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ObjectCollectives;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.testing.RankProcessMain;
import java.util.List;
import java.util.Map;

/**
 * Runs on every rank of {@link MultiProcessPointToPointTest}: 8 MiB sent to both ring neighbours at
 * once before any receive (with an all-reduce in between), every rooted collective and all-to-all,
 * object collectives, and a send / receive shape mismatch that both ranks must see.
 */
public final class PointToPointScenario implements RankProcessMain.RankScenario {

  private static final int BIG = 2 << 20; // floats: 8 MiB

  private static float[] pattern(int src, int message, int count) {
    float[] a = new float[count];
    for (int i = 0; i < count; i++) {
      a[i] = src * 100_000f + message * 10_000f + (i % 4099);
    }
    return a;
  }

  @Override
  public void run(ProcessGroup pg, String[] args) {
    int n = pg.size();
    int r = pg.rank();
    int next = (r + 1) % n;
    int prev = (r + n - 1) % n;
    // Both neighbours at once: message 0 goes to next, message 1 to prev, all before a receive.
    Work toNext = pg.isend(HostBuffer.of(pattern(r, 0, BIG)), next);
    Work toPrev = pg.isend(HostBuffer.of(pattern(r, 1, BIG)), prev);
    float[] sum = {r, 1};
    pg.allReduce(HostBuffer.of(sum), ReduceOp.SUM).await(); // collectives pass messages in flight
    assertThat(sum).containsExactly(n * (n - 1) / 2f, n);
    float[] fromPrev = new float[BIG];
    float[] fromNext = new float[BIG];
    Work a = pg.irecv(HostBuffer.of(fromPrev), prev);
    Work b = pg.irecv(HostBuffer.of(fromNext), next);
    for (Work w : List.of(toNext, toPrev, a, b)) {
      w.await();
    }
    assertThat(fromPrev).isEqualTo(pattern(prev, 0, BIG));
    assertThat(fromNext).isEqualTo(pattern(next, 1, BIG));
    System.out.println("rank " + r + " exchanged 8 MiB both ways");

    int count = 100_003;
    float[] mine = new float[count];
    for (int i = 0; i < count; i++) {
      mine[i] = r + i % 7;
    }
    pg.reduce(HostBuffer.of(mine), n - 1, ReduceOp.SUM).await();
    if (r == n - 1) {
      for (int i = 0; i < count; i += 997) {
        assertThat(mine[i]).isEqualTo(n * (n - 1) / 2f + n * (i % 7));
      }
    }
    long[] gathered = r == 0 ? new long[3 * n] : null;
    pg.gather(HostBuffer.of(new long[] {r, 2L * r, 3L * r}), gather(gathered), 0).await();
    if (r == 0) {
      for (int q = 0; q < n; q++) {
        assertThat(gathered[3 * q + 2]).isEqualTo(3L * q);
      }
    }
    int root = 1 % n;
    int[] whole = new int[2 * n];
    for (int i = 0; i < whole.length; i++) {
      whole[i] = 10 * i;
    }
    int[] part = new int[2];
    pg.scatter(r == root ? HostBuffer.of(whole) : null, HostBuffer.of(part), root).await();
    assertThat(part).containsExactly(20 * r, 20 * r + 10);
    int[] out = new int[n];
    int[] in = new int[n];
    for (int j = 0; j < n; j++) {
      in[j] = 100 * r + j;
    }
    pg.allToAll(HostBuffer.of(in), HostBuffer.of(out)).await();
    for (int k = 0; k < n; k++) {
      assertThat(out[k]).isEqualTo(100 * k + r);
    }
    System.out.println("rank " + r + " checked reduce, gather, scatter and allToAll");

    List<Map<String, Integer>> maps = ObjectCollectives.allGatherObject(pg, Map.of("rank", r));
    for (int q = 0; q < n; q++) {
      assertThat(maps.get(q)).containsEntry("rank", q);
    }
    assertThat(ObjectCollectives.broadcastObject(pg, r == root ? "from " + r : null, root))
        .isEqualTo("from " + root);
    System.out.println("rank " + r + " checked object collectives");

    if (r < 2) {
      long number = n == 2 ? 2 : 1; // this pair's third message where next and prev are one rank
      Work w =
          r == 0
              ? pg.isend(HostBuffer.of(new float[10]), 1)
              : pg.irecv(HostBuffer.of(new float[12]), 0);
      assertThatThrownBy(w::await)
          .isInstanceOf(CollectiveMismatchException.class)
          .hasMessageContaining(r == 0 ? "10 float32" : "12 float32")
          .hasMessageContaining(
              r == 0
                  ? "rank 1's irecv #" + number + " has 12 float32"
                  : "rank 0's isend #" + number + " has 10 float32");
      System.out.println("rank " + r + " saw the p2p mismatch");
    }
    pg.barrier().await();
    System.out.println("rank " + r + " passed");
  }

  private static HostBuffer gather(long[] out) {
    return out == null ? null : HostBuffer.of(out);
  }

  /**
   * Rank 1 exits while rank 0 waits to receive from it and to send to it: both of rank 0's messages
   * fail within seconds (not the 60 s timeout) naming rank 1.
   */
  public static final class PeerExits implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      pg.barrier().await();
      if (pg.rank() == 1) {
        System.out.println("rank 1 exits");
        System.out.flush();
        Runtime.getRuntime().halt(0);
      }
      long start = System.nanoTime();
      Work recv = pg.irecv(HostBuffer.of(new float[64]), 1);
      Work send = pg.isend(HostBuffer.of(new float[1 << 20]), 1);
      for (Work w : List.of(recv, send)) {
        assertThatThrownBy(w::await)
            .isInstanceOf(dev.ddp4j.PeerFailureException.class)
            .hasMessageContaining("on rank 0 cannot finish")
            .hasMessageContaining("rank 1");
      }
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertThat(seconds).as("seconds to notice").isLessThan(20);
      System.out.println("rank 0 saw rank 1 exit in " + seconds + " s");
      Runtime.getRuntime().halt(0); // close would wait for the dead rank's collectives
    }
  }
}
