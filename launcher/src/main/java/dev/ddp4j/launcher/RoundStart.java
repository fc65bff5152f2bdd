package dev.ddp4j.launcher;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The barrier before a restart round ({@code --max-restarts}): every node, having stopped its
 * workers of the previous round, sets {@code round/<next>/<rank>} and waits for all of them, while
 * watching the others' heartbeats so a node that died meanwhile is named at once.
 */
final class RoundStart {

  private RoundStart() {}

  /** Marks this node ready for round {@code next}. */
  static void arrive(Store store, int next, int nodeRank) {
    store.set(NodeRendezvousDescriptor.round(next, nodeRank), new byte[0]);
  }

  /**
   * Waits until every node has arrived at round {@code next}.
   *
   * @throws DdpTimeoutException after the rendezvous timeout, naming the nodes that did not come
   * @throws DdpException when a peer's heartbeat stalls meanwhile
   */
  static void awaitOthers(Store store, LaunchConfig c, int next, PeerHeartbeats heartbeats) {
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < c.nnodes(); r++) {
      keys.add(NodeRendezvousDescriptor.round(next, r));
    }
    long deadlineNs = System.nanoTime() + c.rendezvousTimeout().toNanos();
    while (!store.check(keys)) {
      long now = System.nanoTime();
      Optional<String> stalled = heartbeats.stalledPeer(next, now);
      if (stalled.isPresent()) {
        throw new DdpException("restart round " + next + " cannot start: " + stalled.get());
      }
      if (now - deadlineNs > 0) {
        List<Integer> missing = NodeJoin.absent(store, keys);
        throw new DdpTimeoutException(
            "restart round "
                + next
                + " timed out after "
                + c.rendezvousTimeout().toSeconds()
                + " s: node rank(s) "
                + missing.toString().replaceAll("[\\[\\]]", "")
                + " did not stop their workers of round "
                + (next - 1),
            missing);
      }
      NodeRendezvous.pause(c);
    }
  }
}
