package dev.ddp4j.launcher;

import dev.ddp4j.DdpException;
import dev.ddp4j.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The completion barrier of a round whose workers succeeded here: this node sets {@code
 * done/<round>/<rank>}; the store's host waits for every node to be done (or to fail) before it may
 * take the store down. Before the last round every node waits, since a failure elsewhere restarts
 * them all; then waiting nodes say {@code seen/<round>/<rank>} so the host keeps the store up until
 * they have seen "all done".
 */
final class NodeCompletion {

  private NodeCompletion() {}

  /**
   * Empty when the round succeeded everywhere (or this node need not wait), else the problem that
   * ended the wait, from {@code peerProblem}.
   */
  static Optional<String> finish(
      Store store,
      LaunchConfig c,
      int nodeRank,
      int round,
      boolean hostsStore,
      boolean lastRound,
      Duration seenTimeout,
      Supplier<Optional<String>> peerProblem) {
    try {
      store.set(NodeRendezvousDescriptor.done(round, nodeRank), new byte[0]);
    } catch (DdpException e) {
      return Optional.empty();
    }
    if (!hostsStore && lastRound) {
      return Optional.empty();
    }
    List<String> done = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (int r = 0; r < c.nnodes(); r++) {
      done.add(NodeRendezvousDescriptor.done(round, r));
      if (r != nodeRank) {
        seen.add(NodeRendezvousDescriptor.seen(round, r));
      }
    }
    while (true) {
      if (store.check(done)) {
        if (lastRound) {
          return Optional.empty();
        }
        // Waiting nodes must see "all done" before the host closes the store.
        if (!hostsStore) {
          store.set(NodeRendezvousDescriptor.seen(round, nodeRank), new byte[0]);
        } else {
          try {
            store.wait(seen, seenTimeout);
          } catch (DdpException e) {
            // A node that never says it saw: it reports the lost store; this job succeeded.
          }
        }
        return Optional.empty();
      }
      Optional<String> p = peerProblem.get();
      if (p.isPresent()) {
        return p;
      }
      if (!NodeRendezvous.pause(c)) {
        return Optional.of("interrupted while waiting for the other nodes to finish");
      }
    }
  }
}
