package dev.ddp4j.collectives.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The store exchange on the two stores ranks really use (the TCP store over loopback, the file
 * store), with threads as ranks, each on its own client.
 */
class StoreExchangeTest {

  private static final String SECRET = "exchange-test-secret";
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  enum Kind {
    TCP,
    FILE
  }

  @TempDir Path dir;
  private StoreServer server; // started by the first TCP client of a test

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private synchronized Store client(Kind kind, Duration timeout) {
    if (kind == Kind.FILE) {
      return FileStore.open(dir.resolve("store"), timeout);
    }
    if (server == null) {
      server = StoreServer.start("127.0.0.1", 0, SECRET);
    }
    return TcpStoreClient.connect("127.0.0.1", server.port(), SECRET, timeout);
  }

  /** Runs {@code rank} on a thread per rank in {@code ranks}, each with its own client. */
  private <T> List<T> onRanks(
      Kind kind, int[] ranks, Duration timeout, BiFunction<Integer, Store, T> rank)
      throws Exception {
    // One thread per rank: every gather blocks until all its ranks published.
    List<CompletableFuture<T>> futures = new ArrayList<>();
    for (int r : ranks) {
      CompletableFuture<T> f = new CompletableFuture<>();
      futures.add(f);
      Thread t =
          new Thread(
              () -> {
                try (Store s = client(kind, timeout)) {
                  f.complete(rank.apply(r, s));
                } catch (RuntimeException e) {
                  f.completeExceptionally(e);
                }
              },
              "rank-" + r);
      t.setDaemon(true);
      t.start();
    }
    List<T> out = new ArrayList<>();
    for (CompletableFuture<T> f : futures) {
      out.add(f.get(60, TimeUnit.SECONDS));
    }
    return out;
  }

  private static int[] upTo(int n) {
    return IntStream.range(0, n).toArray();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldReturnEveryRanksValueInRankOrder(Kind kind) throws Exception {
    List<List<String>> seen =
        onRanks(
            kind,
            upTo(8),
            TIMEOUT,
            (r, s) ->
                new StoreExchange(s, r, 8, TIMEOUT)
                    .allGather("t/node/", "host-" + r, ExchangeCodec.UTF8));
    List<String> expected = IntStream.range(0, 8).mapToObj(r -> "host-" + r).toList();
    assertThat(seen).hasSize(8).allSatisfy(v -> assertThat(v).isEqualTo(expected));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldCarryATypedValueThroughItsCodec(Kind kind) throws Exception {
    List<List<long[]>> seen =
        onRanks(
            kind,
            upTo(4),
            TIMEOUT,
            (r, s) ->
                new StoreExchange(s, r, 4, TIMEOUT)
                    .allGather(
                        "t/stamps/", new long[] {r, -r, Long.MAX_VALUE}, ExchangeCodec.LONGS));
    for (List<long[]> v : seen) {
      for (int r = 0; r < 4; r++) {
        assertThat(v.get(r)).containsExactly(r, -r, Long.MAX_VALUE);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldGatherOnlyTheRanksOfOneNodeWithoutWaitingForTheOthers(Kind kind) throws Exception {
    // Ranks 0, 2, 4 of a group of 6 share a node; 1, 3, 5 never come, and nobody waits for them.
    int[] node = {0, 2, 4};
    List<List<Integer>> seen =
        onRanks(
            kind,
            node,
            TIMEOUT,
            (r, s) ->
                new StoreExchange(s, r, 6, TIMEOUT)
                    .gather("t/shm/", r * 10, node, ExchangeCodec.INT));
    assertThat(seen).allSatisfy(v -> assertThat(v).containsExactly(0, 20, 40));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldNameTheMissingRankAndTheKeyPrefixInOneLineOnTimeout(Kind kind) throws Exception {
    Duration shortWait = Duration.ofMillis(500);
    List<Object> outcomes =
        onRanks(
            kind,
            new int[] {0, 1, 3}, // rank 2 of 4 never comes
            shortWait,
            (r, s) -> {
              try {
                return new StoreExchange(s, r, 4, shortWait)
                    .allGather("t/node/", "h", ExchangeCodec.UTF8);
              } catch (DdpTimeoutException e) {
                return e;
              }
            });
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o).isInstanceOf(DdpTimeoutException.class);
              DdpTimeoutException e = (DdpTimeoutException) o;
              assertThat(e.missingRanks()).containsExactly(2);
              assertThat(e.getMessage())
                  .contains("'t/node/'", "waiting for 3 rank(s): rank 2 never published")
                  .doesNotContain("\n");
            });
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldGiveNullForRanksThatSaidNothingWhenAskedToReportThem(Kind kind) throws Exception {
    Duration shortWait = Duration.ofMillis(500);
    List<List<String>> seen =
        onRanks(
            kind,
            new int[] {0, 2},
            shortWait,
            (r, s) ->
                new StoreExchange(s, r, 3, shortWait)
                    .gatherOrMissing("t/verdict/", "ok " + r, upTo(3), ExchangeCodec.UTF8));
    assertThat(seen).allSatisfy(v -> assertThat(v).containsExactly("ok 0", null, "ok 2"));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldReadAllPeersInOneRequestHoweverManyRanks(Kind kind) throws Exception {
    int n = 16;
    List<int[]> calls =
        onRanks(
            kind,
            upTo(n),
            TIMEOUT,
            (r, s) -> {
              RecordingStore counted = new RecordingStore(s);
              StoreExchange exchange = new StoreExchange(counted, r, n, TIMEOUT);
              exchange.allGather("t/a/", "x" + r, ExchangeCodec.UTF8);
              exchange.gather(
                  "t/b/", "y" + r, r == 0 ? upTo(n) : new int[] {0}, ExchangeCodec.UTF8);
              return new int[] {counted.sets(), counted.reads()};
            });
    // Two gathers: one set and one read each, not one read per peer.
    assertThat(calls).allSatisfy(c -> assertThat(Arrays.toString(c)).isEqualTo("[2, 2]"));
  }
}
