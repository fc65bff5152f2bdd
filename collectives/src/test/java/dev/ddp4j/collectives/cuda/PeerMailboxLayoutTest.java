package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The p2p mailbox's layout (no GPU needed): every flag word inside the flag area and written by one
 * rank only, every sender's slots disjoint from every other's and inside the allocation, for every
 * group size the cuda backend takes.
 */
class PeerMailboxLayoutTest {

  @Test
  void shouldGiveEveryFlagItsOwnWordInsideTheFlagArea() {
    Set<Long> words = new HashSet<>();
    for (int c = 0; c < PeerMailbox.CHANNELS; c++) {
      for (int p = 0; p < ScratchLayout.MAX_RANKS; p++) {
        assertThat(words.add(PeerMailbox.sentOffset(c, p))).isTrue();
        assertThat(words.add(PeerMailbox.freedOffset(c, p))).isTrue();
      }
    }
    assertThat(words)
        .allSatisfy(w -> assertThat(w + 8).isLessThanOrEqualTo(PeerMailbox.FLAG_BYTES));
  }

  @Test
  void shouldKeepEverySendersSlotsDisjointAndInsideTheMailbox() {
    for (int size = 2; size <= ScratchLayout.MAX_RANKS; size++) {
      long total = PeerMailbox.totalBytes(size);
      for (int holder = 0; holder < size; holder++) {
        TreeMap<Long, String> starts = new TreeMap<>();
        for (int c = 0; c < PeerMailbox.CHANNELS; c++) {
          for (int sender = 0; sender < size; sender++) {
            if (sender == holder) {
              continue;
            }
            for (int k = 0; k < PeerMailbox.SLOTS; k++) {
              long at = PeerMailbox.slotOffset(size, c, holder, sender, k);
              assertThat(at).isGreaterThanOrEqualTo(PeerMailbox.FLAG_BYTES);
              assertThat(at + PeerMailbox.CHUNK_BYTES).isLessThanOrEqualTo(total);
              assertThat(starts.put(at, c + "/" + sender + "/" + k)).isNull();
            }
          }
        }
        // Disjoint: consecutive starts at least a chunk apart.
        Long prev = null;
        for (long at : starts.keySet()) {
          if (prev != null) {
            assertThat(at - prev).isGreaterThanOrEqualTo(PeerMailbox.CHUNK_BYTES);
          }
          prev = at;
        }
        assertThat(starts).hasSize(PeerMailbox.CHANNELS * (size - 1) * PeerMailbox.SLOTS);
      }
    }
  }

  @Test
  void shouldTakeFourMibPerPeer() {
    assertThat(PeerMailbox.totalBytes(2)).isEqualTo(PeerMailbox.FLAG_BYTES + (4L << 20));
    assertThat(PeerMailbox.totalBytes(8)).isEqualTo(PeerMailbox.FLAG_BYTES + (28L << 20));
  }
}
