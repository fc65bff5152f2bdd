package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The TCP store over real loopback sockets: the Store contract plus auth and reconnection. */
class TcpStoreTest extends StoreContractTest {

  private static final String SECRET = "s3cret-for-tests";
  private StoreServer server;

  @BeforeEach
  void startServer() {
    server = StoreServer.start("127.0.0.1", 0, SECRET);
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Override
  Store newClient() {
    return TcpStoreClient.connect("127.0.0.1", server.port(), SECRET, Duration.ofSeconds(20));
  }

  @Test
  void aClientWithTheWrongSecretShouldBeRefusedBeforeReadingAnything() {
    try (Store good = newClient()) {
      good.set("private", "data".getBytes(UTF_8));
    }
    assertThatThrownBy(
            () ->
                TcpStoreClient.connect("127.0.0.1", server.port(), "wrong", Duration.ofSeconds(5)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("authentication failed")
        .hasMessageContaining("DDP4J_STORE_SECRET");
    try (RawStoreSocket raw = new RawStoreSocket(server.port())) {
      raw.readChallengeNonce();
      raw.sendGet(7, "private");
      RawStoreSocket.Frame reply = raw.readFrame();
      assertThat(reply.code()).isEqualTo(StoreProtocolDescriptor.STATUS_ERROR);
      assertThat(new String(reply.body(), UTF_8)).contains("before authentication");
      assertThat(new String(reply.body(), UTF_8)).doesNotContain("data");
      assertThat(raw.isClosedByServer()).isTrue();
    }
  }

  @Test
  void aClientShouldRideOverTheServerDroppingItsConnection() throws Exception {
    try (Store s = newClient();
        Store other = newClient()) {
      s.set("before", "1".getBytes(UTF_8));
      CompletableFuture<byte[]> blocked =
          CompletableFuture.supplyAsync(() -> s.get("after", Duration.ofSeconds(30)));
      assertThatThrownBy(() -> blocked.get(200, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      server.dropConnections();
      assertThat(s.get("before", Duration.ofSeconds(5))).isEqualTo("1".getBytes(UTF_8));
      assertThat(s.add("n", 1)).isEqualTo(1);
      other.set("after", "2".getBytes(UTF_8));
      assertThat(blocked.get(20, TimeUnit.SECONDS)).isEqualTo("2".getBytes(UTF_8));
    }
  }

  @Test
  void aRepeatedAddFromTheSameClientShouldBeAppliedOnce() throws Exception {
    try (RawStoreSocket raw = new RawStoreSocket(server.port())) {
      raw.authenticate(SECRET, 42L);
      raw.sendAdd(5, "dup", 10);
      assertThat(raw.readFrame().longBody()).isEqualTo(10);
    }
    try (RawStoreSocket again = new RawStoreSocket(server.port())) {
      again.authenticate(SECRET, 42L);
      again.sendAdd(5, "dup", 10);
      assertThat(again.readFrame().longBody()).isEqualTo(10);
      again.sendAdd(6, "dup", 10);
      assertThat(again.readFrame().longBody()).isEqualTo(20);
    }
  }

  @Test
  void connectShouldTimeOutNamingTheAddressWhenNoServerListens() {
    int port = server.port();
    server.close();
    server = StoreServer.start("127.0.0.1", 0, SECRET);
    assertThatThrownBy(
            () -> TcpStoreClient.connect("127.0.0.1", port, SECRET, Duration.ofMillis(500)))
        .isInstanceOf(DdpTimeoutException.class)
        .hasMessageContaining("127.0.0.1:" + port);
  }

  @Test
  void aSecondServerOnATakenPortShouldFailWithAStoreExceptionNamingTheAddress() {
    assertThatThrownBy(() -> StoreServer.start("127.0.0.1", server.port(), SECRET))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("cannot bind 127.0.0.1:" + server.port());
  }

  @Test
  void closingClientsShouldReleaseTheirConnections() {
    for (int i = 0; i < 5; i++) {
      newClient().close();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
  }

  @Test
  void theServersBarrierShouldMeetRanksThatUseSetAddAndWaitOnTheSameKeys() throws Exception {
    try (Store native1 = newClient();
        Store generic = newClient()) {
      CompletableFuture<Void> viaOp =
          CompletableFuture.runAsync(
              () -> StoreBarrier.await(native1, "mixed", 0, 2, Duration.ofSeconds(30)));
      assertThatThrownBy(() -> viaOp.get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      assertThat(generic.check(java.util.List.of("barrier/mixed/arrived/0"))).isTrue();
      // Rank 1 does StoreBarrier's steps by hand, as a store without the barrier operation would.
      generic.set("barrier/mixed/arrived/1", new byte[0]);
      assertThat(generic.add("barrier/mixed/count", 1)).isEqualTo(2);
      generic.set("barrier/mixed/done", new byte[0]);
      viaOp.get(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBarrierResentAfterALostConnectionShouldArriveOnce() throws Exception {
    byte[] request = barrierRequest("resent", 0, 2, 30_000);
    try (RawStoreSocket raw = new RawStoreSocket(server.port())) {
      raw.authenticate(SECRET, 42L);
      raw.send(StoreProtocolDescriptor.OP_BARRIER, 5, request);
      try (Store s = newClient()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> s.add("barrier/resent/count", 0) == 1);
      }
    }
    // As TcpStoreClient does after a lost connection: same client id, same request id.
    try (RawStoreSocket again = new RawStoreSocket(server.port());
        Store other = newClient()) {
      again.authenticate(SECRET, 42L);
      again.send(StoreProtocolDescriptor.OP_BARRIER, 5, request);
      // Counted twice, the count would pass 2 when rank 1 arrives and release nobody.
      StoreBarrier.await(other, "resent", 1, 2, Duration.ofSeconds(20));
      RawStoreSocket.Frame reply = again.readFrame();
      assertThat(reply.code()).isEqualTo(StoreProtocolDescriptor.STATUS_OK);
      assertThat(reply.id()).isEqualTo(5);
      assertThat(other.add("barrier/resent/count", 0)).isEqualTo(2);
    }
  }

  private static byte[] barrierRequest(String name, int rank, int worldSize, long timeoutMs) {
    byte[] n = name.getBytes(UTF_8);
    return java.nio.ByteBuffer.allocate(4 + n.length + 4 + 4 + 8)
        .putInt(n.length)
        .put(n)
        .putInt(rank)
        .putInt(worldSize)
        .putLong(timeoutMs)
        .array();
  }

  @Test
  void theServerShouldRefuseABarrierRankOutsideTheWorldAndKeepServing() {
    try (RawStoreSocket raw = new RawStoreSocket(server.port())) {
      raw.authenticate(SECRET, 7L);
      raw.send(StoreProtocolDescriptor.OP_BARRIER, 3, barrierRequest("b", 5, 4, 1000));
      RawStoreSocket.Frame reply = raw.readFrame();
      assertThat(reply.code()).isEqualTo(StoreProtocolDescriptor.STATUS_ERROR);
      assertThat(new String(reply.body(), UTF_8))
          .contains("barrier 'b': rank 5 (expected: 0 <= rank < 4)");
    }
    try (Store s = newClient()) {
      StoreBarrier.await(s, "after", 0, 1, Duration.ofSeconds(5));
    }
  }
}
