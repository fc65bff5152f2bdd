package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A port reserved before the server starts: connections made meanwhile are served once it does. */
class StoreServerReservationTest {

  private static final String SECRET = "reserved";

  @Test
  void connectionsWaitingBeforeServeShouldBeAcceptedAndServedAfterIt() throws Exception {
    StoreServer.Reservation r = StoreServer.reserve("127.0.0.1", 0);
    List<RawStoreSocket> early = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        early.add(new RawStoreSocket(r.port())); // TCP handshake done: waiting in the backlog
      }
      try (StoreServer server = r.serve(SECRET)) {
        assertThat(server.port()).isEqualTo(r.port());
        for (RawStoreSocket s : early) {
          assertThat(s.readChallengeNonce()).isNotEmpty();
        }
        try (Store c =
            TcpStoreClient.connect("127.0.0.1", r.port(), SECRET, Duration.ofSeconds(10))) {
          c.set("k", "v".getBytes(UTF_8));
          assertThat(c.get("k", Duration.ofSeconds(5))).isEqualTo("v".getBytes(UTF_8));
        }
      }
    } finally {
      for (RawStoreSocket s : early) {
        s.close();
      }
      r.close();
    }
  }

  @Test
  void reservingABusyPortShouldNameTheAddressAndClosingAnUnservedOneShouldFreeIt() {
    StoreServer.Reservation r = StoreServer.reserve("127.0.0.1", 0);
    int port = r.port();
    assertThatThrownBy(() -> StoreServer.reserve("127.0.0.1", port))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("store server cannot bind 127.0.0.1:" + port);
    r.close();
    StoreServer.reserve("127.0.0.1", port).close();
  }
}
