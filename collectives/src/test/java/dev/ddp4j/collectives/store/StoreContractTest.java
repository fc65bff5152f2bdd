package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** What every {@link Store} must do, run against each implementation by a subclass. */
abstract class StoreContractTest {

  /** A new client of the same store as every other client this test opened. */
  abstract Store newClient();

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void shouldSetGetDeleteAndCountKeys() {
    try (Store s = newClient()) {
      s.set("a", b("1"));
      s.set("b", b("two"));
      s.set("a", b("one"));
      assertThat(s.get("a", Duration.ofSeconds(5))).isEqualTo(b("one"));
      assertThat(s.numKeys()).isEqualTo(2);
      assertThat(s.check(List.of("a", "b"))).isTrue();
      assertThat(s.check(List.of("a", "c"))).isFalse();
      assertThat(s.delete("a")).isTrue();
      assertThat(s.delete("a")).isFalse();
      assertThat(s.numKeys()).isEqualTo(1);
      s.set("empty", new byte[0]);
      assertThat(s.get("empty", Duration.ofSeconds(1))).isEmpty();
    }
  }

  @Test
  void shouldAddAtomicallyAcrossClients() throws Exception {
    int clients = 4;
    int addsEach = 200;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        fs.add(
            pool.submit(
                () -> {
                  try (Store s = newClient()) {
                    for (int i = 0; i < addsEach; i++) {
                      s.add("counter", 1);
                    }
                  }
                }));
      }
      for (Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    try (Store s = newClient()) {
      assertThat(s.add("counter", 0)).isEqualTo(clients * addsEach);
      assertThat(s.get("counter", Duration.ofSeconds(1))).isEqualTo(b("800"));
      assertThat(s.add("counter", -800)).isZero();
    }
  }

  @Test
  void shouldCompareAndSet() {
    try (Store s = newClient()) {
      assertThat(s.compareSet("k", new byte[0], b("first"))).isEqualTo(b("first"));
      assertThat(s.compareSet("k", b("wrong"), b("second"))).isEqualTo(b("first"));
      assertThat(s.compareSet("k", b("first"), b("second"))).isEqualTo(b("second"));
      assertThat(s.compareSet("missing", b("x"), b("y"))).isEmpty();
      assertThat(s.check(List.of("missing"))).isFalse();
    }
  }

  @Test
  void shouldAppendAndCreateMissingKeys() {
    try (Store s = newClient()) {
      s.append("log", b("ab"));
      s.append("log", b("cd"));
      assertThat(s.get("log", Duration.ofSeconds(1))).isEqualTo(b("abcd"));
    }
  }

  @Test
  void shouldMultiSetAndMultiGetInOrder() {
    try (Store s = newClient()) {
      Map<String, byte[]> m = new LinkedHashMap<>();
      for (int i = 0; i < 50; i++) {
        m.put("m" + i, b("v" + i));
      }
      s.multiSet(m);
      List<String> keys = new ArrayList<>(m.keySet());
      java.util.Collections.reverse(keys);
      List<byte[]> values = s.multiGet(keys, Duration.ofSeconds(5));
      for (int i = 0; i < keys.size(); i++) {
        assertThat(values.get(i)).isEqualTo(m.get(keys.get(i)));
      }
    }
  }

  @Test
  void blockingGetShouldBeWokenByALaterSetFromAnotherClient() throws Exception {
    try (Store waiter = newClient();
        Store setter = newClient()) {
      CompletableFuture<byte[]> got =
          CompletableFuture.supplyAsync(() -> waiter.get("late", Duration.ofSeconds(30)));
      CompletableFuture<Void> waited =
          CompletableFuture.runAsync(
              () -> waiter.wait(List.of("late", "later"), Duration.ofSeconds(30)));
      assertThatThrownBy(() -> got.get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      setter.set("late", b("here"));
      assertThat(got.get(10, TimeUnit.SECONDS)).isEqualTo(b("here"));
      assertThat(waited).isNotDone();
      setter.multiSet(Map.of("later", b("x")));
      waited.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aDeletedKeyShouldBeWaitedForUntilSetAgainAndItsTimeoutShouldNameIt() throws Exception {
    try (Store waiter = newClient();
        Store other = newClient()) {
      other.set("d1", b("old"));
      other.set("d2", b("x"));
      assertThat(other.delete("d1")).isTrue();
      assertThatThrownBy(() -> waiter.get("d1", Duration.ofMillis(200)))
          .isInstanceOf(DdpTimeoutException.class)
          .hasMessageContaining("d1");
      CompletableFuture<List<byte[]>> got =
          CompletableFuture.supplyAsync(
              () -> waiter.multiGet(List.of("d1", "d2"), Duration.ofSeconds(30)));
      other.delete("d2");
      other.set("d2", b("y"));
      other.set("d1", b("new"));
      assertThat(got.get(20, TimeUnit.SECONDS)).containsExactly(b("new"), b("y"));
    }
  }

  @Test
  void compareSetOnADeletedKeyShouldActAsOnAMissingOne() {
    try (Store s = newClient()) {
      s.set("cs", b("v1"));
      s.delete("cs");
      assertThat(s.compareSet("cs", b("v1"), b("v2"))).as("no current value").isEmpty();
      assertThat(s.check(List.of("cs"))).isFalse();
      assertThat(s.compareSet("cs", new byte[0], b("v3"))).isEqualTo(b("v3"));
      assertThat(s.get("cs", Duration.ofSeconds(1))).isEqualTo(b("v3"));
    }
  }

  @Test
  void timeoutsShouldNameTheMissingKeys() {
    try (Store s = newClient()) {
      s.set("present", b("x"));
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> s.get("never", Duration.ofMillis(300)))
          .isInstanceOf(DdpTimeoutException.class)
          .hasMessageContaining("never");
      assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
      assertThatThrownBy(() -> s.wait(List.of("present", "gone1", "gone2"), Duration.ofMillis(200)))
          .isInstanceOf(DdpTimeoutException.class)
          .hasMessageContaining("gone1")
          .hasMessageContaining("gone2")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("present,"));
      assertThatThrownBy(() -> s.multiGet(List.of("present", "nope"), Duration.ofMillis(200)))
          .isInstanceOf(DdpTimeoutException.class)
          .hasMessageContaining("nope");
    }
  }

  @Test
  void barrierShouldReleaseEveryRankOnlyWhenAllArrived() throws Exception {
    int world = 4;
    ExecutorService pool = Executors.newFixedThreadPool(world);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int r = 0; r < world - 1; r++) {
        int rank = r;
        fs.add(
            pool.submit(
                () -> {
                  try (Store s = newClient()) {
                    StoreBarrier.await(s, "b1", rank, world, Duration.ofSeconds(30));
                  }
                }));
      }
      assertThatThrownBy(() -> fs.get(0).get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      try (Store s = newClient()) {
        StoreBarrier.await(s, "b1", world - 1, world, Duration.ofSeconds(30));
      }
      for (Future<?> f : fs) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void barrierTimeoutShouldNameTheMissingRanks() {
    try (Store s = newClient()) {
      StoreBarrier.await(s, "solo", 0, 1, Duration.ofSeconds(5));
      assertThatThrownBy(() -> StoreBarrier.await(s, "b2", 1, 3, Duration.ofMillis(300)))
          .isInstanceOf(DdpTimeoutException.class)
          .hasMessageContaining("1 of 3 ranks arrived")
          .hasMessageContaining("missing ranks [0, 2]")
          .satisfies(
              e -> assertThat(((DdpTimeoutException) e).missingRanks()).containsExactly(0, 2));
    }
  }
}
