package dev.ddp4j.collectives.nccl;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * The members of an NCCL sub-communicator (a cuda group's hierarchical column across hosts) agree
 * whether every one of them made it, so that they all run it or all fall back, and so that one
 * member's failure stops the others at once instead of leaving them inside NCCL's set-up until the
 * timeout. Keys under the sub-group's prefix:
 *
 * <pre>
 * verdict/R   "ok", or "failed: reason", set by member R once its set-up ended
 * </pre>
 */
final class NcclSubGroups {

  /** How often a member still connecting looks for another's failure (a store round trip). */
  private static final long LOOK_EVERY_NS = 100_000_000L;

  private NcclSubGroups() {}

  /**
   * Runs {@code create} (given a "another member gave up" poll to pass to NCCL's set-up), publishes
   * the verdict, and waits for every member's.
   *
   * @param drop releases what {@code create} made when another member failed
   * @return what {@code create} made, once every member made its own
   * @throws DdpException naming the members that failed (this one's own error as the cause where it
   *     failed), or {@link DdpTimeoutException} naming the members that published nothing
   */
  static <T> T join(
      Store store,
      String prefix,
      int rank,
      int size,
      Duration timeout,
      Function<BooleanSupplier, T> create,
      Consumer<T> drop) {
    T made;
    try {
      made = create.apply(othersFailed(store, prefix, rank, size));
    } catch (RuntimeException e) {
      publish(store, prefix, rank, "failed: " + e.getMessage());
      throw e;
    }
    List<String> verdicts =
        new StoreExchange(store, rank, size, timeout)
            .gatherOrMissing(
                prefix + "/verdict/", "ok", IntStream.range(0, size).toArray(), ExchangeCodec.UTF8);
    List<String> failed = new ArrayList<>();
    List<Integer> silent = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      String v = verdicts.get(r);
      if (v == null) {
        silent.add(r);
      } else if (r != rank && !v.equals("ok")) {
        failed.add("member " + r + " " + v);
      }
    }
    if (failed.isEmpty() && silent.isEmpty()) {
      return made;
    }
    drop.accept(made);
    if (!failed.isEmpty()) {
      throw new DdpException(
          "member "
              + rank
              + " of "
              + size
              + " made its communicator, but "
              + String.join("; ", failed));
    }
    throw new DdpTimeoutException(
        "member "
            + rank
            + " of "
            + size
            + " made its communicator, but members "
            + silent
            + " said nothing within "
            + timeout.toSeconds()
            + " s",
        silent);
  }

  private static void publish(Store store, String prefix, int rank, String verdict) {
    store.set(prefix + "/verdict/" + rank, verdict.getBytes(StandardCharsets.UTF_8));
  }

  /** True once another member published a failure; looks at most every 100 ms. */
  private static BooleanSupplier othersFailed(Store store, String prefix, int rank, int size) {
    long[] nextNs = {System.nanoTime() + LOOK_EVERY_NS};
    return () -> {
      long now = System.nanoTime();
      if (now - nextNs[0] < 0) {
        return false;
      }
      nextNs[0] = now + LOOK_EVERY_NS;
      for (int r = 0; r < size; r++) {
        String key = prefix + "/verdict/" + r;
        if (r != rank && store.check(List.of(key))) {
          String v = new String(store.get(key, Duration.ofSeconds(5)), StandardCharsets.UTF_8);
          if (!v.equals("ok")) {
            return true;
          }
        }
      }
      return false;
    };
  }
}
