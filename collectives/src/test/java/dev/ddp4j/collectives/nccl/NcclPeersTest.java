package dev.ddp4j.collectives.nccl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.store.FileStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the ranks of an nccl group tell each other through a real file store: who joined, who is
 * behind a collective (named in timeouts), and the first rank's abort, seen by the others only.
 */
class NcclPeersTest {

  @TempDir Path dir;

  @Test
  void shouldNameTheRanksThatDidNotJoinOrCallACollective() {
    try (FileStore store = FileStore.open(dir.resolve("store"), Duration.ofSeconds(10))) {
      NcclPeers r0 = new NcclPeers(store, "g", 0, 4);
      NcclPeers r1 = new NcclPeers(store, "g", 1, 4);
      NcclPeers r2 = new NcclPeers(store, "g", 2, 4);
      r0.markJoined();
      r2.markJoined();
      assertThat(r0.notJoined()).containsExactly(1, 3);
      r0.publishIssued(7);
      r1.publishIssued(6);
      r2.publishIssued(7);
      // Rank 3 never published: it called nothing yet.
      assertThat(r0.behind(7)).isEqualTo(Map.of(1, 6L, 3, -1L));
      assertThat(r0.behind(6)).isEqualTo(Map.of(3, -1L));
    }
  }

  @Test
  void shouldShowTheFirstAbortToTheOtherRanksOnly() {
    try (FileStore store = FileStore.open(dir.resolve("store"), Duration.ofSeconds(10))) {
      NcclPeers r0 = new NcclPeers(store, "g", 0, 3);
      NcclPeers r1 = new NcclPeers(store, "g", 1, 3);
      NcclPeers r2 = new NcclPeers(store, "g", 2, 3);
      assertThat(r0.peerAbort()).isEmpty();
      r1.announceAbort("allReduce #4 timed out");
      r2.announceAbort("a later abort");
      assertThat(r0.peerAbort()).contains("1: allReduce #4 timed out");
      assertThat(r2.peerAbort()).contains("1: allReduce #4 timed out");
      assertThat(r1.peerAbort()).isEmpty();
      assertThat(NcclPeers.rankOf(r0.peerAbort().orElseThrow())).isEqualTo(1);
    }
  }
}
