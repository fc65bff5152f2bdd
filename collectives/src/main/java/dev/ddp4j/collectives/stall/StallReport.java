package dev.ddp4j.collectives.stall;

import dev.ddp4j.collectives.stall.LedgerSnapshot.Entry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one line a stall is reported in, worked out from every rank's {@link LedgerSnapshot}: which
 * ranks are not in the collective this rank waits in, and where each of them is. Plain data in and
 * out, so every case is tested without processes.
 *
 * <p>Only one rank reports a stall: the lowest of those waiting in the earliest unfinished
 * collective. A rank whose heartbeat is older than the stale limit counts as silent (stopped or
 * frozen), whatever its last snapshot says, and is always named.
 */
record StallReport(String line, List<Integer> culprits) {

  /** Places named at most in one line; the rest are counted. */
  static final int MAX_PLACES = 8;

  /**
   * The report of rank {@code me}, or null when another rank reports this stall.
   *
   * @param all each rank's snapshot by rank (null where none was found); {@code all.get(me)} is
   *     this rank's, with an unfinished collective
   */
  static StallReport of(String group, int me, List<LedgerSnapshot> all, long nowMs, long staleMs) {
    Entry mine = all.get(me).pending();
    long s = mine.sequence();
    for (int q = 0; q < all.size(); q++) {
      LedgerSnapshot o = all.get(q);
      if (q == me || o == null || o.pending() == null || nowMs - o.atMs() > staleMs) {
        continue;
      }
      long theirs = o.pending().sequence();
      if (theirs < s || (theirs == s && q < me)) {
        return null; // a rank further behind, or a lower one waiting with this one, reports it
      }
    }
    List<Integer> waiting = new ArrayList<>();
    List<Integer> culprits = new ArrayList<>();
    Map<String, List<Integer>> ranksByPlace = new LinkedHashMap<>();
    for (int q = 0; q < all.size(); q++) {
      LedgerSnapshot o = all.get(q);
      String at = q == me ? null : whereIs(o, s, mine.what(), nowMs, staleMs);
      if (q == me || (at == null && o.pending() != null && o.pending().sequence() == s)) {
        waiting.add(q);
      } else if (at != null) {
        culprits.add(q);
        ranksByPlace.computeIfAbsent(at, k -> new ArrayList<>()).add(q);
      }
    }
    List<String> where = new ArrayList<>();
    for (Map.Entry<String, List<Integer>> e : ranksByPlace.entrySet()) {
      if (where.size() == MAX_PLACES) {
        where.add("and " + (ranksByPlace.size() - MAX_PLACES) + " more places");
        break;
      }
      boolean many = e.getValue().size() > 1;
      where.add(
          ranks(e.getValue())
              + " "
              + e.getKey()
                  .replace("{is}", many ? "are" : "is")
                  .replace("{has}", many ? "have" : "has"));
    }
    String waited =
        ranks(waiting)
            + (waiting.size() == 1 ? " has" : " have")
            + " waited "
            + seconds(nowMs - mine.wallMs())
            + " in "
            + mine.op()
            + " #"
            + s
            + " ("
            + mine.site()
            + ")";
    String line =
        where.isEmpty()
            ? "stall in "
                + group
                + ": "
                + waited
                + "; every rank called it and answers, so it is slow or stuck inside the"
                + " transport (DDP4J_DEBUG=INFO shows the routes)"
            : "stall in " + group + ": " + String.join("; ", where) + "; " + waited;
    return new StallReport(line, List.copyOf(culprits));
  }

  /**
   * Where a rank is, said when it holds up collective {@code s}, with {@code {is}} and {@code
   * {has}} for verbs (ranks in the same place share one clause); null when it does not (it waits in
   * {@code s} too, or already finished it).
   */
  private static String whereIs(LedgerSnapshot o, long s, String what, long nowMs, long staleMs) {
    if (o == null) {
      return "{has} published nothing (did it create this group?)";
    }
    Entry p = o.pending();
    Entry last = o.last();
    if (nowMs - o.atMs() > staleMs) {
      String seen =
          p != null
              ? "last seen in " + p.op() + " #" + p.sequence() + " (" + p.site() + ")"
              : last != null
                  ? "last seen after " + last.op() + " #" + last.sequence() + ", at " + last.site()
                  : "before its first collective";
      return "{has} been silent for "
          + seconds(nowMs - o.atMs())
          + " (no heartbeat: the process is stopped, frozen or swapping; "
          + seen
          + ")";
    }
    if (p != null) {
      if (p.sequence() > s || (p.sequence() == s && p.what().equals(what))) {
        return null;
      }
      return "{is} in "
          + (p.sequence() == s
              ? p.what() + " #" + s + ", a different collective"
              : p.op() + " #" + p.sequence())
          + " ("
          + p.site()
          + ")";
    }
    if (last != null && last.sequence() >= s) {
      return null;
    }
    String since =
        last == null
            ? "{has} not called a collective yet"
            : "{has} not called a collective for "
                + seconds(nowMs - last.wallMs())
                + " (last: "
                + last.op()
                + " #"
                + last.sequence()
                + "; now at "
                + last.site()
                + ")";
    LedgerSnapshot.Elsewhere e = o.elsewhere();
    if (e != null) {
      Entry c = e.call();
      return "{is} in "
          + c.op()
          + " #"
          + c.sequence()
          + " of "
          + e.group()
          + " ("
          + c.site()
          + ") and here "
          + since;
    }
    return since;
  }

  /** {@code rank 3}, {@code ranks 0-2}, {@code ranks 0, 2, 5-7}. */
  static String ranks(List<Integer> sorted) {
    StringBuilder b = new StringBuilder(sorted.size() == 1 ? "rank " : "ranks ");
    for (int i = 0; i < sorted.size(); ) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      b.append(i == 0 ? "" : ", ").append(sorted.get(i));
      if (j > i + 1) {
        b.append('-').append(sorted.get(j));
      } else if (j == i + 1) {
        b.append(", ").append(sorted.get(j));
      }
      i = j + 1;
    }
    return b.toString();
  }

  /** {@code 2.3 s} below ten seconds, {@code 31 s} above. */
  static String seconds(long ms) {
    return ms < 10_000
        ? String.format(Locale.ROOT, "%.1f s", Math.max(0, ms) / 1000.0)
        : ms / 1000 + " s";
  }
}
