package dev.ddp4j.collectives.store;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A barrier over any {@link Store}, built on set, add and wait: each rank marks its arrival, bumps
 * a counter, and the last to arrive sets the release key every rank waits on. Each barrier needs a
 * name no other barrier of the job uses (e.g. {@code "init/0"}); keys live under {@code
 * barrier/<name>/}. On the TCP store the server runs those three steps itself, on the same keys,
 * for one round trip instead of three ({@code OP_BARRIER}): with thousands of ranks the barrier is
 * bound by the store's per-request work and the wake-ups of the waiting threads.
 */
public final class StoreBarrier {

  private StoreBarrier() {}

  /**
   * Blocks until all {@code worldSize} ranks have called this with the same {@code name}.
   *
   * @throws DdpTimeoutException after {@code timeout}, naming the ranks that never arrived
   */
  public static void await(Store store, String name, int rank, int worldSize, Duration timeout) {
    checkRank(name, rank, worldSize);
    if (store instanceof TcpStoreClient tcp) {
      tcp.barrier(name, rank, worldSize, timeout);
      return;
    }
    store.set(arrivedKey(name, rank), new byte[0]);
    long arrived = store.add(countKey(name), 1);
    if (arrived == worldSize) {
      store.set(doneKey(name), new byte[0]);
    }
    try {
      store.wait(List.of(doneKey(name)), timeout);
    } catch (DdpTimeoutException e) {
      List<Integer> missing = new ArrayList<>();
      for (int r = 0; r < worldSize; r++) {
        if (!store.check(List.of(arrivedKey(name, r)))) {
          missing.add(r);
        }
      }
      throw timedOut(name, rank, worldSize, timeout, missing);
    }
  }

  static void checkRank(String name, int rank, int worldSize) {
    if (rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException(
          "barrier '" + name + "': rank " + rank + " (expected: 0 <= rank < " + worldSize + ")");
    }
  }

  /** The key rank {@code rank} sets when it arrives. */
  static String arrivedKey(String name, int rank) {
    return "barrier/" + name + "/arrived/" + rank;
  }

  /** The arrival counter. */
  static String countKey(String name) {
    return "barrier/" + name + "/count";
  }

  /** The release key, set by the arrival that completes the count. */
  static String doneKey(String name) {
    return "barrier/" + name + "/done";
  }

  static DdpTimeoutException timedOut(
      String name, int rank, int worldSize, Duration timeout, List<Integer> missing) {
    return new DdpTimeoutException(
        "barrier '"
            + name
            + "' timed out after "
            + timeout.toSeconds()
            + " s on rank "
            + rank
            + ": "
            + (worldSize - missing.size())
            + " of "
            + worldSize
            + " ranks arrived (missing ranks "
            + missing
            + ")",
        missing);
  }
}
