package dev.ddp4j.launcher;

import java.nio.charset.StandardCharsets;

/**
 * The keys launchers share in the job's store, all under {@code ddp4j/launcher/}; values are
 * US-ASCII or UTF-8 text, or empty markers.
 *
 * <pre>
 *  key                          written by                   value            read by
 *  joined                       each launcher (add)          join count       join order ranks
 *  node/R                       node R (compareSet)          "host nproc=N"   every node (wait)
 *  store-host                   the node hosting the store   its node rank    others, for messages
 *  heartbeat/R                  node R, every second (add)   beat count       PeerHeartbeats
 *  failed/ROUND                 first node to fail (cas)     its report       every node's monitor
 *  ack/ROUND/R                  node R, having read failed   (empty)          the host, last round
 *  round/ROUND/R                node R, ready for ROUND      (empty)          RoundStart
 *  done/ROUND/R                 node R, workers succeeded    (empty)          NodeCompletion
 *  seen/ROUND/R                 node R, saw every node done  (empty)          the host, before close
 * </pre>
 *
 * R is a node rank, ROUND the restart round (0 for the first attempt).
 */
final class NodeRendezvousDescriptor {

  static final String PREFIX = "ddp4j/launcher/";

  private NodeRendezvousDescriptor() {}

  static String joined() {
    return PREFIX + "joined";
  }

  static String node(int rank) {
    return nodes() + rank;
  }

  /** The prefix of {@link #node} keys, one per node rank. */
  static String nodes() {
    return PREFIX + "node/";
  }

  static String storeHost() {
    return PREFIX + "store-host";
  }

  static String heartbeat(int rank) {
    return PREFIX + "heartbeat/" + rank;
  }

  static String failed(int round) {
    return PREFIX + "failed/" + round;
  }

  static String ack(int round, int rank) {
    return PREFIX + "ack/" + round + "/" + rank;
  }

  static String round(int round, int rank) {
    return PREFIX + "round/" + round + "/" + rank;
  }

  static String done(int round, int rank) {
    return PREFIX + "done/" + round + "/" + rank;
  }

  static String seen(int round, int rank) {
    return PREFIX + "seen/" + round + "/" + rank;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static String ascii(byte[] b) {
    return new String(b, StandardCharsets.US_ASCII);
  }
}
