package dev.ddp4j.collectives.schedule;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A collective compiled for every rank: plain data that can be printed, hashed, checked ({@link
 * ScheduleChecker}), simulated and run by either executor. Every rank builds the same schedule from
 * the same plan, so the hash lets ranks confirm through the store that they agree.
 *
 * @param kind the collective
 * @param algorithm the planner's name for how it is done, e.g. {@code ring}
 * @param nRanks the number of ranks
 * @param count elements in the working buffer (see {@link CollectiveKind}); for ALL_GATHER and
 *     REDUCE_SCATTER a multiple of {@code nRanks}
 * @param root the root rank of BROADCAST, -1 otherwise
 * @param ranks one program per rank, index = rank
 */
public record Schedule(
    CollectiveKind kind,
    String algorithm,
    int nRanks,
    long count,
    int root,
    List<RankSchedule> ranks) {

  public Schedule {
    ranks = List.copyOf(ranks);
    if (nRanks < 1 || ranks.size() != nRanks) {
      throw new IllegalArgumentException(
          "a schedule for "
              + nRanks
              + " ranks has "
              + ranks.size()
              + " rank programs (expected: one per rank)");
    }
    for (int r = 0; r < nRanks; r++) {
      if (ranks.get(r).rank() != r) {
        throw new IllegalArgumentException(
            "rank program " + r + " says it is rank " + ranks.get(r).rank());
      }
    }
    if ((kind == CollectiveKind.ALL_GATHER || kind == CollectiveKind.REDUCE_SCATTER)
        && count % nRanks != 0) {
      throw new IllegalArgumentException(
          kind + " working buffer of " + count + " elements is not " + nRanks + " equal blocks");
    }
    if ((kind == CollectiveKind.BROADCAST) != (root >= 0) || root >= nRanks) {
      throw new IllegalArgumentException(
          "root "
              + root
              + " for "
              + kind
              + " (expected: 0 <= root < "
              + nRanks
              + " for BROADCAST, else -1)");
    }
  }

  /** The program of {@code rank}. */
  public RankSchedule rank(int rank) {
    return ranks.get(rank);
  }

  /** Elements per rank block: {@code count / nRanks} for ALL_GATHER and REDUCE_SCATTER. */
  public long blockCount() {
    return count / nRanks;
  }

  /** The number of channels (the widest rank program). */
  public int channelCount() {
    return ranks.stream().mapToInt(r -> r.channels().size()).max().orElse(0);
  }

  /**
   * Every rank's steps, one line per channel: {@code rank 0 ch 0: SEND->1 [0,8) RECV_REDUCE<-1
   * [8,16)}. Canonical: {@link #hash()} is taken over it.
   */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(kind).append(' ').append(algorithm).append(" n=").append(nRanks);
    sb.append(" count=").append(count).append(" root=").append(root).append('\n');
    for (RankSchedule r : ranks) {
      for (int c = 0; c < r.channels().size(); c++) {
        sb.append("rank ").append(r.rank()).append(" ch ").append(c).append(':');
        for (Step s : r.channels().get(c)) {
          sb.append(' ').append(s);
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /** SHA-256 of {@link #describe()}, as hex: equal on every rank that compiled the same plan. */
  public String hash() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(describe().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
