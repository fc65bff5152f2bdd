package dev.ddp4j.collectives.store;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The all-gather every setup step runs over the store: each rank sets its value under {@code
 * keyPrefix + rank}, then reads the values of the ranks it needs in one {@link Store#multiGet} (one
 * request on the TCP store and the file store), so a step costs one set and one round trip however
 * many ranks there are. Values come back in the order of the ranks asked for.
 *
 * <pre>
 *   store key               value
 *   &lt;keyPrefix&gt;&lt;rank&gt;       the rank's value, as its {@link ExchangeCodec} encodes it
 * </pre>
 *
 * A rank that never publishes fails the others after the timeout with one line naming it and the
 * key prefix ({@link DdpTimeoutException#missingRanks()} lists it).
 */
public final class StoreExchange {

  private final Store store;
  private final int rank;
  private final int size;
  private final Duration timeout;

  /**
   * The exchange of {@code rank} in a group of {@code size} ranks, each gather waiting up to {@code
   * timeout}.
   */
  public StoreExchange(Store store, int rank, int size, Duration timeout) {
    this.store = store;
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
  }

  public int rank() {
    return rank;
  }

  public int size() {
    return size;
  }

  /** Publishes {@code mine} and returns every rank's value, index = rank (collective). */
  public <T> List<T> allGather(String keyPrefix, T mine, ExchangeCodec<T> codec) {
    return gather(keyPrefix, mine, IntStream.range(0, size).toArray(), codec);
  }

  /**
   * Publishes {@code mine} and returns the values of {@code ranks} (this rank among them or not),
   * in that order: the gather of a subset, the ranks of one node say, or rank 0 reading everyone
   * while the others read rank 0. Every rank in {@code ranks} must publish under the same prefix.
   */
  public <T> List<T> gather(String keyPrefix, T mine, int[] ranks, ExchangeCodec<T> codec) {
    store.set(keyPrefix + rank, codec.encode(mine));
    List<String> keys = new ArrayList<>(ranks.length);
    for (int r : ranks) {
      if (r != rank) {
        keys.add(keyPrefix + r);
      }
    }
    List<byte[]> values = keys.isEmpty() ? List.of() : read(keyPrefix, ranks, keys);
    List<T> out = new ArrayList<>(ranks.length);
    int next = 0;
    for (int r : ranks) {
      out.add(r == rank ? mine : codec.decode(values.get(next++)));
    }
    return out;
  }

  /**
   * {@link #gather}, except that ranks which published nothing within the timeout come back as null
   * instead of failing it: for steps that report who said what and who said nothing.
   */
  public <T> List<T> gatherOrMissing(
      String keyPrefix, T mine, int[] ranks, ExchangeCodec<T> codec) {
    try {
      return gather(keyPrefix, mine, ranks, codec);
    } catch (DdpTimeoutException e) {
      if (e.missingRanks().isEmpty()) {
        throw e;
      }
      int[] heard = Arrays.stream(ranks).filter(r -> !e.missingRanks().contains(r)).toArray();
      Iterator<T> values = gather(keyPrefix, mine, heard, codec).iterator();
      List<T> out = new ArrayList<>(ranks.length);
      for (int r : ranks) {
        out.add(e.missingRanks().contains(r) ? null : values.next());
      }
      return out;
    }
  }

  /** "rank 3" or "ranks 1, 2", for messages that name who is missing. */
  public static String ranksText(List<Integer> ranks) {
    return (ranks.size() == 1 ? "rank " : "ranks ")
        + String.join(", ", ranks.stream().map(String::valueOf).toList());
  }

  private List<byte[]> read(String keyPrefix, int[] ranks, List<String> keys) {
    try {
      return store.multiGet(keys, timeout);
    } catch (DdpTimeoutException e) {
      List<Integer> missing = new ArrayList<>();
      try {
        for (int r : ranks) {
          if (r != rank && !store.check(List.of(keyPrefix + r))) {
            missing.add(r);
          }
        }
      } catch (RuntimeException lost) {
        throw e; // the store itself is gone: its own message says so
      }
      if (missing.isEmpty()) {
        throw e;
      }
      throw new DdpTimeoutException(
          "store exchange '"
              + keyPrefix
              + "' on rank "
              + rank
              + " timed out after "
              + timeout.toSeconds()
              + " s: "
              + ranksText(missing)
              + " of "
              + (ranks.length == size ? "the group's " + size : Arrays.toString(ranks))
              + " never published (did it fail, or not reach this setup step?)",
          missing);
    }
  }
}
