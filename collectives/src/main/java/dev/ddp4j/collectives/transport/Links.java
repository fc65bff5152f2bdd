package dev.ddp4j.collectives.transport;

import java.util.List;

/**
 * A rank's connections to every peer of its group, on every channel, whatever they cross (shared
 * memory on this node, sockets to others), plus what the executor needs to never hang silently:
 * which peers are dead or failed, and which have not begun a collective.
 */
public interface Links extends AutoCloseable {

  int rank();

  int size();

  int channels();

  /** The piece size every port of this group carries, equal on all ranks. */
  int pieceBytes();

  SendPort sendPort(int peer, int channel);

  RecvPort recvPort(int peer, int channel);

  /** Announces that this rank began collective {@code sequence}. Cheap: called per collective. */
  void started(long sequence);

  /** Tells every peer that collective {@code sequence} failed here, so theirs fail at once. */
  void failed(long sequence, String reason);

  /**
   * Null while {@code peer} looks alive; otherwise why it is gone, in words (e.g. {@code rank 2
   * (pid 4242) exited}, {@code connection from rank 2 closed}). Called about once a millisecond
   * while waiting; process liveness is looked up at most every 100 ms unless {@code fresh}.
   */
  String peerGone(int peer, boolean fresh);

  /**
   * Null unless {@code peer} reported that a collective failed there (it gave up: timeout,
   * mismatch, a dead peer of its own); then what it said.
   */
  String peerFailed(int peer);

  /**
   * The peers that have provably not begun collective {@code sequence} (peers whose progress this
   * rank cannot see are left out).
   */
  List<Integer> notStarted(long sequence);

  @Override
  void close();
}
