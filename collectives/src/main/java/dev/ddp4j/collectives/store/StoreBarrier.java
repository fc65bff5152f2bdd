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
 * barrier/<name>/}.
 */
public final class StoreBarrier {

  private StoreBarrier() {}

  /**
   * Blocks until all {@code worldSize} ranks have called this with the same {@code name}.
   *
   * @throws DdpTimeoutException after {@code timeout}, naming the ranks that never arrived
   */
  public static void await(Store store, String name, int rank, int worldSize, Duration timeout) {
    if (rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException(
          "barrier '" + name + "': rank " + rank + " (expected: 0 <= rank < " + worldSize + ")");
    }
    String prefix = "barrier/" + name + "/";
    store.set(prefix + "arrived/" + rank, new byte[0]);
    long arrived = store.add(prefix + "count", 1);
    if (arrived == worldSize) {
      store.set(prefix + "done", new byte[0]);
    }
    try {
      store.wait(List.of(prefix + "done"), timeout);
    } catch (DdpTimeoutException e) {
      List<Integer> missing = new ArrayList<>();
      for (int r = 0; r < worldSize; r++) {
        if (!store.check(List.of(prefix + "arrived/" + r))) {
          missing.add(r);
        }
      }
      throw new DdpTimeoutException(
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
}
