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
 *
 * @param rank this rank, in a group of {@code size}
 * @param timeout how long each gather waits for the others
 */
public record StoreExchange(Store store, int rank, int size, Duration timeout) {

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
    Iterator<T> others =
        read(keyPrefix, Arrays.stream(ranks).filter(r -> r != rank).toArray(), codec).iterator();
    List<T> out = new ArrayList<>(ranks.length);
    for (int r : ranks) {
      out.add(r == rank ? mine : others.next());
    }
    return out;
  }

  /**
   * The values of {@code ranks} under {@code keyPrefix}, in that order, without publishing: the
   * read half of {@link #gather}, for a step whose ranks publish their own way (a compareSet).
   */
  public <T> List<T> read(String keyPrefix, int[] ranks, ExchangeCodec<T> codec) {
    if (ranks.length == 0) {
      return List.of();
    }
    List<String> keys = Arrays.stream(ranks).mapToObj(r -> keyPrefix + r).toList();
    List<byte[]> values;
    try {
      values = store.multiGet(keys, timeout);
    } catch (DdpTimeoutException e) {
      throw missing(keyPrefix, ranks, e);
    }
    return values.stream().map(codec::decode).toList();
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

  /** {@code e} with the ranks of {@code ranks} that did not publish, as one line naming them. */
  private DdpTimeoutException missing(String keyPrefix, int[] ranks, DdpTimeoutException e) {
    List<Integer> missing = new ArrayList<>();
    try {
      for (int r : ranks) {
        if (!store.check(List.of(keyPrefix + r))) {
          missing.add(r);
        }
      }
    } catch (RuntimeException lost) {
      return e; // the store itself is gone: its own message says so
    }
    if (missing.isEmpty()) {
      return e;
    }
    return new DdpTimeoutException(
        "store exchange '"
            + keyPrefix
            + "' on rank "
            + rank
            + " timed out after "
            + timeout.toSeconds()
            + " s waiting for "
            + ranks.length
            + " rank(s): "
            + ranksText(missing)
            + " never published (did it fail, or not reach this setup step?)",
        missing);
  }
}
