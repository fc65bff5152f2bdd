package dev.ddp4j.collectives.nccl;

import dev.ddp4j.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the ranks of one nccl group tell each other through the store, so that a rank that waits too
 * long can name who is missing (NCCL itself cannot) and so that one rank's abort reaches the others
 * at once. Keys under the group's prefix:
 *
 * <pre>
 * joined/R   set by rank R before it initialises its communicator
 * issued/R   the sequence number of the last collective rank R called (decimal), refreshed by its
 *            watchdog a few times a second while it changes
 * abort      "R: reason", set by the first rank that aborted its communicator
 * </pre>
 */
final class NcclPeers {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

  private final Store store;
  private final String prefix;
  private final int rank;
  private final int size;

  NcclPeers(Store store, String prefix, int rank, int size) {
    this.store = store;
    this.prefix = prefix;
    this.rank = rank;
    this.size = size;
  }

  void markJoined() {
    store.set(prefix + "/joined/" + rank, new byte[] {1});
  }

  /** Ranks that have not set their joined key. */
  List<Integer> notJoined() {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      if (!store.check(List.of(prefix + "/joined/" + r))) {
        out.add(r);
      }
    }
    return out;
  }

  void publishIssued(long sequence) {
    store.set(prefix + "/issued/" + rank, Long.toString(sequence).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The other ranks whose last called collective is before {@code sequence}, with that last one
   * (-1: none, or never published).
   */
  Map<Integer, Long> behind(long sequence) {
    Map<Integer, Long> out = new LinkedHashMap<>();
    for (int r = 0; r < size; r++) {
      if (r == rank) {
        continue;
      }
      String key = prefix + "/issued/" + r;
      long last = -1;
      if (store.check(List.of(key))) {
        last = Long.parseLong(new String(store.get(key, READ_TIMEOUT), StandardCharsets.UTF_8));
      }
      if (last < sequence) {
        out.put(r, last);
      }
    }
    return out;
  }

  /** Records this rank's abort unless another rank's is there already. */
  void announceAbort(String reason) {
    store.compareSet(
        prefix + "/abort", new byte[0], (rank + ": " + reason).getBytes(StandardCharsets.UTF_8));
  }

  /** Another rank's abort, as {@code "R: reason"}; empty when none (or only this rank's). */
  Optional<String> peerAbort() {
    String key = prefix + "/abort";
    if (!store.check(List.of(key))) {
      return Optional.empty();
    }
    String v = new String(store.get(key, READ_TIMEOUT), StandardCharsets.UTF_8);
    return v.startsWith(rank + ": ") ? Optional.empty() : Optional.of(v);
  }

  /** The rank in an abort record {@code "R: reason"}. */
  static int rankOf(String abortRecord) {
    return Integer.parseInt(abortRecord.substring(0, abortRecord.indexOf(':')));
  }
}
