package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.testing.ThreadRanks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cpu group's isend / irecv between thread ranks over real shared-memory rings ({@code shm}) or
 * real loopback sockets ({@code sockets}).
 */
class CpuPointToPointTest {

  private static ThreadRanks.Opener over(String transport) {
    Map<String, String> env =
        transport.equals("sockets") ? Map.of("DDP4J_SHM_DISABLE", "1") : Map.of();
    return (w, store, timeout) -> TestGroups.create(w, store, timeout, env);
  }

  private static float[] pattern(int rank, int message, int count) {
    float[] a = new float[count];
    for (int i = 0; i < count; i++) {
      a[i] = rank * 1_000_000f + message * 1_000f + (i % 997);
    }
    return a;
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm", "sockets"})
  void shouldSendEightMebibytesBothWaysAtOnceBeforeEitherReceives(String transport)
      throws Exception {
    int count = 2 << 20; // 8 MiB of float32
    ThreadRanks.runAll(
        2,
        Duration.ofSeconds(30),
        over(transport),
        pg -> {
          int peer = 1 - pg.rank();
          float[] got = new float[count];
          Work sent = pg.isend(HostBuffer.of(pattern(pg.rank(), 0, count)), peer);
          Work received = pg.irecv(HostBuffer.of(got), peer);
          received.await();
          sent.await();
          assertThat(got).isEqualTo(pattern(peer, 0, count));
          return null;
        });
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm", "sockets"})
  void shouldMatchMessagesInIssueOrderWhicheverSidePostsFirst(String transport) throws Exception {
    int messages = 6;
    ThreadRanks.runAll(
        3,
        Duration.ofSeconds(30),
        over(transport),
        pg -> {
          int r = pg.rank();
          // Rank 1 posts every receive before rank 0 sends anything; rank 2 sends first.
          if (r == 1) {
            List<float[]> got = new ArrayList<>();
            List<Work> works = new ArrayList<>();
            for (int m = 0; m < messages; m++) {
              got.add(new float[1000 + 40_000 * m]);
              works.add(pg.irecv(HostBuffer.of(got.get(m)), 0));
            }
            pg.barrier().await();
            for (int m = 0; m < messages; m++) {
              works.get(m).await();
              assertThat(works.get(m).sequenceNumber()).isEqualTo(m);
              assertThat(got.get(m)).isEqualTo(pattern(0, m, 1000 + 40_000 * m));
            }
            pg.send(HostBuffer.of(pattern(1, 9, 77)), 2);
          } else if (r == 0) {
            pg.barrier().await();
            for (int m = 0; m < messages; m++) {
              Work w = pg.isend(HostBuffer.of(pattern(0, m, 1000 + 40_000 * m)), 1);
              assertThat(w.sequenceNumber())
                  .as("this pair's count, not the collectives'")
                  .isEqualTo(m);
            }
          } else {
            pg.barrier().await();
            float[] got = new float[77];
            pg.recv(HostBuffer.of(got), 1);
            assertThat(got).isEqualTo(pattern(1, 9, 77));
          }
          return null;
        });
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm", "sockets"})
  void shouldRunCollectivesWhileAReceiveWaitsForItsSender(String transport) throws Exception {
    ThreadRanks.runAll(
        2,
        Duration.ofSeconds(30),
        over(transport),
        pg -> {
          float[] got = new float[100_000];
          Work recv = pg.rank() == 0 ? pg.irecv(HostBuffer.of(got), 1) : null;
          float[] sum = {1, 2, 3};
          pg.allReduce(HostBuffer.of(sum), ReduceOp.SUM).await();
          assertThat(sum).containsExactly(2, 4, 6);
          if (pg.rank() == 0) {
            assertThat(recv.isCompleted()).isFalse();
            recv.await();
            assertThat(got).isEqualTo(pattern(1, 0, 100_000));
          } else {
            pg.send(HostBuffer.of(pattern(1, 0, 100_000)), 0);
          }
          return null;
        });
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm", "sockets"})
  void shouldFailBothSidesOfAShapeMismatchNamingBothShapesAndStayInStep(String transport)
      throws Exception {
    ThreadRanks.runAll(
        2,
        Duration.ofSeconds(30),
        over(transport),
        pg -> {
          if (pg.rank() == 0) {
            Work w = pg.isend(HostBuffer.of(new float[4096]), 1);
            assertThatThrownBy(w::await)
                .isInstanceOf(CollectiveMismatchException.class)
                .hasMessageContaining("isend(4096 float32 to rank 1) #0 on rank 0")
                .hasMessageContaining("rank 1's irecv #0 has 2048 float32");
            pg.send(HostBuffer.of(new int[] {7, 8}), 1);
          } else {
            Work w = pg.irecv(HostBuffer.of(new float[2048]), 0);
            assertThatThrownBy(w::await)
                .isInstanceOf(CollectiveMismatchException.class)
                .hasMessageContaining("irecv(2048 float32 from rank 0) #0 on rank 1")
                .hasMessageContaining("rank 0's isend #0 has 4096 float32");
            int[] next = new int[2];
            pg.recv(HostBuffer.of(next), 0);
            assertThat(next).containsExactly(7, 8);
          }
          return null;
        });
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm"})
  void shouldRefuseSelfSendsAndPeersOutOfRange(String transport) throws Exception {
    ThreadRanks.runAll(
        2,
        Duration.ofSeconds(30),
        over(transport),
        pg -> {
          HostBuffer b = HostBuffer.of(new float[1]);
          assertThatThrownBy(() -> pg.isend(b, pg.rank()))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessage(
                  "isend: peer "
                      + pg.rank()
                      + " (expected: another rank, 0 <= peer < 2, not "
                      + pg.rank()
                      + ")");
          assertThatThrownBy(() -> pg.irecv(b, 2))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageStartingWith("irecv: peer 2 (expected: another rank");
          assertThatThrownBy(() -> pg.irecv(b, -1))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageStartingWith("irecv: peer -1");
          return null;
        });
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm", "sockets"})
  void shouldNameThePeerWhenAReceiveTimesOut(String transport) throws Exception {
    List<Object> out =
        ThreadRanks.run(
            2,
            Duration.ofSeconds(2),
            over(transport),
            (ProcessGroup pg) -> {
              if (pg.rank() == 0) {
                Work w = pg.irecv(HostBuffer.of(new float[16]), 1);
                assertThatThrownBy(w::await)
                    .isInstanceOf(DdpTimeoutException.class)
                    .hasMessageContaining("irecv(16 float32 from rank 1) #0 on rank 0 timed out")
                    .hasMessageContaining("rank 1 posted no matching isend")
                    .satisfies(
                        e -> assertThat(((DdpTimeoutException) e).missingRanks()).contains(1));
                // The lane is out of step now: later receives from rank 1 say so at once.
                assertThatThrownBy(() -> pg.irecv(HostBuffer.of(new float[1]), 1).await())
                    .hasMessageContaining("out of step");
                pg.store().set("checked", new byte[1]);
              } else {
                pg.store().get("checked", Duration.ofSeconds(30)); // outlives rank 0's timeout
              }
              return "ok";
            });
    assertThat(out).containsExactly("ok", "ok");
  }
}
