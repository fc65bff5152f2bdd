package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.testing.RankProcessMain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Rank-side halves of {@link FailureTest}: each prints what it saw; the test checks it. */
final class FailureScenarios {

  private FailureScenarios() {}

  /**
   * Where {@code args} contains {@code shared}: the group's shared host memory for {@link #floats},
   * allocated by every rank before anything fails; else null.
   */
  static HostBuffer sharedPool(ProcessGroup pg, String[] args) {
    return List.of(args).contains("shared") ? pg.allocateHost(1 << 20, DataType.FLOAT32) : null;
  }

  /**
   * {@code n} floats: the start of {@code pool} where there is one, else a heap array, or native
   * memory if {@code args} contains {@code direct}.
   */
  static HostBuffer floats(HostBuffer pool, int n, String[] args) {
    if (pool != null) {
      return pool.slice(0, n);
    }
    if (!List.of(args).contains("direct")) {
      return HostBuffer.of(new float[n]);
    }
    return HostBuffer.of(
        java.nio.ByteBuffer.allocateDirect(n * 4).order(java.nio.ByteOrder.nativeOrder()),
        dev.ddp4j.DataType.FLOAT32);
  }

  /**
   * The last rank never calls collective #1; the others must time out naming it. Args: {@code
   * direct} for native buffers, {@code shared} for shared host memory.
   */
  public static final class Hang implements RankProcessMain.RankScenario {
    @Override
    public Duration timeout() {
      return Duration.ofSeconds(3);
    }

    @Override
    public void run(ProcessGroup pg, String[] args) {
      int last = pg.size() - 1;
      HostBuffer pool = sharedPool(pg, args);
      pg.allReduce(HostBuffer.of(new float[100]), ReduceOp.SUM).await();
      if (pg.rank() == last) {
        List<String> checked = new ArrayList<>();
        for (int r = 0; r < last; r++) {
          checked.add("hang/checked/" + r);
        }
        pg.store().wait(checked, Duration.ofSeconds(60));
        return;
      }
      var work = pg.allReduce(floats(pool, 100, args), ReduceOp.SUM);
      assertThatThrownBy(() -> work.await(Duration.ofSeconds(30)))
          .isInstanceOf(DdpTimeoutException.class)
          .hasMessageContaining("#1")
          .hasMessageContaining("ranks that never arrived: [" + last + "]")
          .satisfies(
              e -> assertThat(((DdpTimeoutException) e).missingRanks()).containsExactly(last));
      // a broken group fails later collectives at once, naming the first failure
      assertThatThrownBy(() -> pg.barrier().await())
          .hasMessageContaining("this group failed earlier");
      pg.store().set("hang/checked/" + pg.rank(), new byte[] {1});
      System.out.println("rank " + pg.rank() + " saw the timeout");
    }
  }

  /**
   * Rank 1 dies between collectives; the others must fail within seconds, not at the timeout. Args:
   * {@code direct} for native buffers, {@code shared} for shared host memory.
   */
  public static final class DeadPeer implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      HostBuffer pool = sharedPool(pg, args);
      pg.allReduce(HostBuffer.of(new float[100]), ReduceOp.SUM).await();
      pg.barrier().await();
      if (pg.rank() == 1) { // die only once the others are past the barrier (its last pieces sent)
        List<String> past = new ArrayList<>();
        for (int r = 0; r < pg.size(); r++) {
          if (r != 1) {
            past.add("dead/past-barrier/" + r);
          }
        }
        pg.store().wait(past, Duration.ofSeconds(60));
        Runtime.getRuntime().halt(7);
      }
      pg.store().set("dead/past-barrier/" + pg.rank(), new byte[] {1});
      long start = System.nanoTime();
      var work = pg.allReduce(floats(pool, 1 << 20, args), ReduceOp.SUM);
      assertThatThrownBy(work::await)
          .isInstanceOf(PeerFailureException.class)
          .hasMessageContaining("rank 1");
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertThat(seconds).as("seconds until the dead peer was noticed").isLessThan(5);
      System.out.println("rank " + pg.rank() + " saw the dead peer");
    }
  }

  /**
   * Rank 1 calls allReduce with a different count, dtype or op (args[0]); args[1] {@code direct}
   * uses native memory (cross-memory attach where the size allows).
   */
  public static final class Mismatch implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      pg.barrier().await();
      boolean odd = pg.rank() == 1;
      HostBuffer buffer;
      ReduceOp op = ReduceOp.SUM;
      String ours;
      String theirs;
      switch (args[0]) {
        case "count":
          buffer = floats(null, odd ? 2048 : 4096, args);
          ours = odd ? "2048 float32" : "4096 float32";
          theirs = odd ? "4096 float32" : "2048 float32";
          break;
        case "dtype":
          buffer =
              odd
                  ? dev.ddp4j.testing.TypedValues.buffer(
                      dev.ddp4j.DataType.INT32,
                      new double[4096],
                      List.of(args).contains("direct")
                          ? HostBuffer.Storage.NIO
                          : HostBuffer.Storage.ARRAY)
                  : floats(null, 4096, args);
          ours = odd ? "4096 int32" : "4096 float32";
          theirs = odd ? "4096 float32" : "4096 int32";
          break;
        default:
          buffer = floats(null, 4096, args);
          op = odd ? ReduceOp.MAX : ReduceOp.SUM;
          ours = odd ? "with MAX" : "with SUM";
          theirs = odd ? "with SUM" : "with MAX";
      }
      var work = pg.allReduce(buffer, op);
      assertThatThrownBy(work::await)
          .isInstanceOf(CollectiveMismatchException.class)
          .hasMessageContaining("allReduce #1")
          .hasMessageContaining("on rank " + pg.rank())
          .hasMessageContaining("but rank " + (1 - pg.rank()) + " called")
          .hasMessageContaining(ours)
          .hasMessageContaining(theirs);
      System.out.println("rank " + pg.rank() + " saw the mismatch");
    }
  }

  /**
   * Each rank of two broadcasts from itself: both only send, so without the root's confirmation
   * neither would notice until the next collective. args[0] is the count.
   */
  public static final class RootMismatch implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      pg.barrier().await();
      int count = Integer.parseInt(args[0]);
      int me = pg.rank();
      int other = 1 - me;
      var work = pg.broadcast(HostBuffer.of(new float[count]), me);
      assertThatThrownBy(work::await)
          .isInstanceOf(CollectiveMismatchException.class)
          .hasMessageContaining(
              "broadcast #1 of " + count + " float32 from root " + me + " on rank " + me)
          .hasMessageContaining(
              "but rank "
                  + other
                  + " called broadcast of "
                  + count
                  + " float32 from root "
                  + other);
      System.out.println("rank " + me + " saw the root mismatch at the call");
    }
  }

  /**
   * Two ranks on two hosts (network namespaces, see TwoHostSocketTest): rank 0 is inside an
   * all-reduce when rank 1 takes its network link down (args[0]: its interface) and never closes a
   * socket, as a host losing power would. Rank 0 must fail within seconds, by the silence of rank
   * 1's heartbeats, not at the 120 s timeout.
   */
  public static final class LinkCut implements RankProcessMain.RankScenario {
    @Override
    public Duration timeout() {
      return Duration.ofSeconds(120);
    }

    @Override
    public void run(ProcessGroup pg, String[] args) throws Exception {
      pg.allReduce(HostBuffer.of(new float[1000]), ReduceOp.SUM).await();
      if (pg.rank() == 1) {
        pg.store().wait(List.of("cut/started"), Duration.ofSeconds(60));
        Process ip = new ProcessBuilder("ip", "link", "set", args[0], "down").inheritIO().start();
        assertThat(ip.waitFor(20, TimeUnit.SECONDS)).as("ip link set down finished").isTrue();
        assertThat(ip.exitValue()).as("ip link set " + args[0] + " down").isZero();
        pg.store().set("cut/done", new byte[] {1});
        System.out.println("rank 1 cut its link");
        pg.store().wait(List.of("cut/checked"), Duration.ofSeconds(30));
        System.out.flush();
        Runtime.getRuntime().halt(0); // a vanished host closes nothing
      }
      // 16 MiB: more than the socket buffers hold, so rank 0 is mid-transfer when the link goes.
      var work = pg.allReduce(HostBuffer.of(new float[1 << 22]), ReduceOp.SUM);
      pg.store().set("cut/started", new byte[] {1});
      pg.store().wait(List.of("cut/done"), Duration.ofSeconds(60));
      long cutNs = System.nanoTime();
      assertThatThrownBy(() -> work.await(Duration.ofSeconds(20)))
          .isInstanceOf(PeerFailureException.class)
          .hasMessageContaining("rank 1 at ")
          .hasMessageContaining("not even a heartbeat")
          .satisfies(e -> assertThat(((PeerFailureException) e).peerRank()).isEqualTo(1));
      long seconds = (System.nanoTime() - cutNs) / 1_000_000_000L;
      assertThat(seconds).as("seconds from the cut until rank 1 was declared gone").isLessThan(8);
      pg.store().set("cut/checked", new byte[] {1});
      System.out.println("rank 0 saw rank 1 vanish after " + seconds + " s");
    }
  }
}
