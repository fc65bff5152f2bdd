package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ConfigException;
import dev.ddp4j.spi.Settings;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which GPU pairs the user keeps from peer access: {@code DDP4J_P2P_DISABLE=1} ({@code
 * NCCL_P2P_DISABLE}) for every pair, {@code DDP4J_P2P_DISABLE_PAIRS=0-1,2-3} for the pairs of CUDA
 * device ordinals listed (both directions), so that a machine without a peer path between some GPUs
 * can be emulated on one where every pair has NVLink. Pairs name ordinals on one host.
 *
 * @param allDisabled peer access is off for every pair
 * @param pairs disabled pairs as {@code "a-b"} with {@code a < b}, sorted
 * @param allSource the variable that turned every pair off, for messages
 */
public record PeerAccessSettings(boolean allDisabled, Set<String> pairs, String allSource) {

  public static final String P2P_DISABLE = "DDP4J_P2P_DISABLE";
  public static final String P2P_DISABLE_PAIRS = "DDP4J_P2P_DISABLE_PAIRS";

  /** Peer access wherever the driver allows it. */
  public static final PeerAccessSettings NONE = new PeerAccessSettings(false, Set.of(), null);

  /** Reads both variables from {@code env}; a malformed value throws naming it and the form. */
  public static PeerAccessSettings fromEnvironment(Settings env) {
    boolean allOff =
        env.parsed(
                P2P_DISABLE,
                v ->
                    switch (v) {
                      case "1" -> true;
                      case "0" -> false;
                      default -> throw new IllegalArgumentException(v);
                    },
                "1 to stage every GPU pair through host memory, or 0")
            .orElse(false);
    return new PeerAccessSettings(
        allOff, parsePairs(env.text(P2P_DISABLE_PAIRS, null)), env.source(P2P_DISABLE));
  }

  /** {@code "0-1, 2-3"} as {@code {"0-1", "2-3"}}; null or blank is empty. */
  static Set<String> parsePairs(String value) {
    Set<String> out = new TreeSet<>();
    if (value == null || value.isBlank()) {
      return out;
    }
    for (String item : value.split(",", -1)) {
      String[] ab = item.trim().split("-");
      int a = -1;
      int b = -1;
      if (ab.length == 2) {
        try {
          a = Integer.parseInt(ab[0].trim());
          b = Integer.parseInt(ab[1].trim());
        } catch (NumberFormatException e) {
          a = -1;
        }
      }
      if (a < 0 || b < 0 || a == b) {
        throw new ConfigException(
            P2P_DISABLE_PAIRS
                + "="
                + value
                + ": '"
                + item.trim()
                + "' is not a pair (expected: comma-separated pairs of two different CUDA device"
                + " ordinals, e.g. 0-1,2-3)");
      }
      out.add(key(a, b));
    }
    return out;
  }

  /** The settings as every rank must agree on them, e.g. {@code DDP4J_P2P_DISABLE=0 ...=0-1}. */
  public String describe() {
    return P2P_DISABLE
        + "="
        + (allDisabled ? 1 : 0)
        + " "
        + P2P_DISABLE_PAIRS
        + "="
        + String.join(",", pairs);
  }

  /**
   * Throws naming both ranks' settings unless they are equal: ranks that decide their routes from
   * different settings would wait for each other on different transports until the timeout.
   */
  public static void checkSame(int rank, String mine, int peer, String theirs) {
    if (!mine.equals(theirs)) {
      throw new ConfigException(
          "rank "
              + peer
              + " runs with "
              + theirs
              + " but rank "
              + rank
              + " with "
              + mine
              + " (expected: the same peer-access and staging settings on every rank)");
    }
  }

  /** Whether the pair of device ordinals {@code a}, {@code b} (either order) is listed. */
  public boolean pairDisabled(int a, int b) {
    return pairs.contains(key(a, b));
  }

  static String key(int a, int b) {
    return Math.min(a, b) + "-" + Math.max(a, b);
  }
}
