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
}
