package dev.ddp4j.launcher;

import static dev.ddp4j.launcher.NodeRendezvousDescriptor.ascii;

import dev.ddp4j.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * This node's heartbeat ({@code heartbeat/<rank>} bumped every second by a thread of its own, so
 * beats go on while the launcher stops workers or waits for the others) and the watch on the other
 * nodes' beats: a peer whose count has not changed for {@link #PEER_DEAD_AFTER} is named stalled.
 */
final class PeerHeartbeats implements AutoCloseable {

  static final Duration PEER_DEAD_AFTER = Duration.ofSeconds(5);
  static final long HEARTBEAT_EVERY_NS = 1_000_000_000L;

  private final Store store;
  private final int nodeRank;
  private final Duration storeTimeout;
  private final long[] lastBeat;
  private final long[] lastBeatChangeNs; // 0: not seen yet
  private final ScheduledExecutorService beats =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "ddp4j-launcher-heartbeat");
            t.setDaemon(true);
            return t;
          });

  /** Beats once now, then every second. */
  PeerHeartbeats(Store store, int nodeRank, int nnodes, Duration storeTimeout) {
    this.store = store;
    this.nodeRank = nodeRank;
    this.storeTimeout = storeTimeout;
    this.lastBeat = new long[nnodes];
    this.lastBeatChangeNs = new long[nnodes];
    beat();
    beats.scheduleWithFixedDelay(
        this::beatQuietly, HEARTBEAT_EVERY_NS, HEARTBEAT_EVERY_NS, TimeUnit.NANOSECONDS);
  }

  private void beat() {
    store.add(NodeRendezvousDescriptor.heartbeat(nodeRank), 1);
  }

  private void beatQuietly() {
    try {
      beat();
    } catch (RuntimeException e) {
      // The main thread's own store calls report a lost store.
    }
  }

  /**
   * The first peer not done in {@code round} whose beats stopped {@link #PEER_DEAD_AFTER} ago, as
   * the reason to stop this node's workers.
   */
  Optional<String> stalledPeer(int round, long nowNs) {
    for (int r = 0; r < lastBeat.length; r++) {
      if (r == nodeRank || store.check(List.of(NodeRendezvousDescriptor.done(round, r)))) {
        continue;
      }
      long beat =
          Long.parseLong(ascii(store.get(NodeRendezvousDescriptor.heartbeat(r), storeTimeout)));
      if (beat != lastBeat[r] || lastBeatChangeNs[r] == 0) {
        lastBeat[r] = beat;
        lastBeatChangeNs[r] = nowNs;
      } else if (nowNs - lastBeatChangeNs[r] > PEER_DEAD_AFTER.toNanos()) {
        String who =
            new String(
                store.get(NodeRendezvousDescriptor.node(r), storeTimeout), StandardCharsets.UTF_8);
        return Optional.of(
            "node "
                + r
                + " ("
                + who
                + ") stopped sending heartbeats "
                + PEER_DEAD_AFTER.toSeconds()
                + " s ago: its launcher died or its host is unreachable; stopped the workers of node "
                + nodeRank);
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    beats.shutdownNow();
  }
}
