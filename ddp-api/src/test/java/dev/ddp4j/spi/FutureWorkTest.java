package dev.ddp4j.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.PeerFailureException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class FutureWorkTest {

  @Test
  void shouldNameTheCollectiveAndTheMissingRanksOnTimeout() {
    FutureWork w =
        new FutureWork(
            17, "allReduce(4096 float32, SUM)", Duration.ofMillis(50), () -> List.of(2, 3));
    long t0 = System.nanoTime();
    assertThatThrownBy(w::await)
        .isInstanceOf(DdpTimeoutException.class)
        .hasMessage(
            "allReduce(4096 float32, SUM) #17 did not finish within 0.050 s; ranks that never arrived: [2, 3]")
        .satisfies(e -> assertThat(((DdpTimeoutException) e).missingRanks()).containsExactly(2, 3));
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(Duration.ofMillis(50).toNanos());
    assertThat(w.isCompleted()).isFalse();
    assertThat(w.toString()).endsWith("pending");
  }

  @Test
  void shouldWakeAWaiterWhenAnotherThreadCompletes() throws Exception {
    FutureWork w = new FutureWork(0, "barrier()", Duration.ofSeconds(30), List::of);
    CountDownLatch waiting = new CountDownLatch(1);
    Thread t =
        new Thread(
            () -> {
              waiting.countDown();
              w.await();
            });
    t.start();
    waiting.await();
    w.complete();
    t.join(10_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(w.isSuccess()).isTrue();
    assertThat(w.toCompletableFuture()).isCompleted();
  }

  @Test
  void shouldRethrowTheBackendsErrorAsIs() {
    FutureWork w = new FutureWork(3, "broadcast(8 int64, root 0)", Duration.ofSeconds(1), List::of);
    PeerFailureException dead = new PeerFailureException(1, "rank 1 closed its connection");
    w.fail(dead);
    assertThatThrownBy(w::await).isSameAs(dead);
    assertThat(w.isCompleted()).isTrue();
    assertThat(w.isSuccess()).isFalse();

    FutureWork other = new FutureWork(4, "barrier()", Duration.ofSeconds(1), List::of);
    other.fail(new IllegalStateException("boom"));
    assertThatThrownBy(other::await)
        .isInstanceOf(DdpException.class)
        .hasMessage("barrier() #4 failed: java.lang.IllegalStateException: boom");
  }

  @Test
  void shouldCheckCollectiveArguments() {
    var in = dev.ddp4j.HostBuffer.of(new float[4]);
    assertThatThrownBy(
            () ->
                CollectiveChecks.gathered(
                    "allGather", in, dev.ddp4j.HostBuffer.of(new float[7]), 2))
        .hasMessage(
            "allGather: the whole buffer has 7 elements but the per-rank part has 4 (expected: whole = part x 2 ranks = 8)");
    assertThatThrownBy(
            () ->
                CollectiveChecks.sameShape("allReduce", in, dev.ddp4j.HostBuffer.of(new double[4])))
        .hasMessageContaining("input is 4 FLOAT32 but output is 4 FLOAT64");
    assertThatThrownBy(() -> CollectiveChecks.root("broadcast", 4, 4))
        .hasMessage("broadcast: root 4 is not a rank (expected: 0 <= root < 4)");
    CollectiveChecks.gathered("allGather", in, dev.ddp4j.HostBuffer.of(new float[8]), 2);
  }
}
