package dev.ddp4j.collectives.stall;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What one rank publishes to the store about a group, as its heartbeat: when it published, its
 * oldest unfinished collective, its latest ones, and an unfinished one of another group of the same
 * process (a rank blocked there is not lost here). Text, one field per line:
 *
 * <pre>
 * rank=3
 * at=1718000000123                       wall-clock ms of publishing
 * pending=17|allReduce of 4096 float32 with SUM|1718000000000|Train.main(Train.java:9)
 * recent=14|...|                        up to 4 lines, oldest first; only the latest has a site:
 *                                        where its thread is now
 * elsewhere=cpu group g1|0|barrier|1718000000050|Eval.run(Eval.java:30)
 * </pre>
 *
 * A call is {@code sequence|what|wall-clock ms issued|call site}.
 */
record LedgerSnapshot(int rank, long atMs, Entry pending, List<Entry> recent, Elsewhere elsewhere) {

  /** A call as published. */
  record Entry(long sequence, String what, long wallMs, String site) {

    /** The collective's name alone: {@code allReduce}. */
    String op() {
      int cut = what.length();
      for (char c : new char[] {' ', '('}) {
        int i = what.indexOf(c);
        if (i >= 0) {
          cut = Math.min(cut, i);
        }
      }
      return what.substring(0, cut);
    }

    static Entry parse(String s) {
      String[] f = s.split("\\|", 4);
      return new Entry(Long.parseLong(f[0]), f[1], Long.parseLong(f[2]), f.length > 3 ? f[3] : "");
    }
  }

  /** An unfinished call of another group in the same process. */
  record Elsewhere(String group, Entry call) {}

  /** The latest call, or null if none was issued. */
  Entry last() {
    return recent.isEmpty() ? null : recent.get(recent.size() - 1);
  }

  static byte[] encode(
      int rank,
      long atMs,
      CollectiveLedger.Call pending,
      List<CollectiveLedger.Call> recent,
      String elsewhereGroup,
      CollectiveLedger.Call elsewhere) {
    StringBuilder b = new StringBuilder();
    b.append("rank=").append(rank).append('\n').append("at=").append(atMs).append('\n');
    if (pending != null) {
      b.append("pending=").append(pending.encode(pending.site())).append('\n');
    }
    for (int i = 0; i < recent.size(); i++) {
      CollectiveLedger.Call c = recent.get(i);
      // The latest call's thread is shown where it is now: an idle rank's is where it idles.
      String where =
          i < recent.size() - 1 ? null : c == pending ? pending.site() : CallSite.of(c.thread);
      b.append("recent=").append(c.encode(where)).append('\n');
    }
    if (elsewhere != null) {
      b.append("elsewhere=").append(elsewhereGroup.replace('|', '/')).append('|');
      b.append(elsewhere.encode(elsewhere.site())).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  static LedgerSnapshot decode(byte[] bytes) {
    int rank = -1;
    long at = 0;
    Entry pending = null;
    List<Entry> recent = new ArrayList<>();
    Elsewhere elsewhere = null;
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      int eq = line.indexOf('=');
      if (eq < 0) {
        continue;
      }
      String v = line.substring(eq + 1);
      switch (line.substring(0, eq)) {
        case "rank" -> rank = Integer.parseInt(v);
        case "at" -> at = Long.parseLong(v);
        case "pending" -> pending = Entry.parse(v);
        case "recent" -> recent.add(Entry.parse(v));
        case "elsewhere" -> {
          int bar = v.indexOf('|');
          elsewhere = new Elsewhere(v.substring(0, bar), Entry.parse(v.substring(bar + 1)));
        }
        default -> {
          // a field of a newer version: ignored
        }
      }
    }
    return new LedgerSnapshot(rank, at, pending, List.copyOf(recent), elsewhere);
  }
}
