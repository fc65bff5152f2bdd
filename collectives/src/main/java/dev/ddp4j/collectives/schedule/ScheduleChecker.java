package dev.ddp4j.collectives.schedule;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Proves a {@link Schedule} right by running every rank's program symbolically. Each element holds
 * "the sum over a set of ranks of their element i"; a receive-reduce must add disjoint sets of the
 * same element i, a copy moves the value as is. At the end every element must hold what {@link
 * CollectiveKind} promises, every message must have been received, and no rank may be left waiting.
 *
 * <p>Channels between a pair of ranks hold at most {@code slots} unreceived messages (a SEND blocks
 * while full), so a schedule that passes with {@code slots = 1} cannot deadlock on any transport
 * with at least one slot per pair and channel. Ranks are stepped round-robin.
 */
public final class ScheduleChecker {

  /**
   * Symbolic state grows as count x ranks; larger schedules are checked at a smaller count instead.
   */
  public static final long MAX_CHECKED_ELEMENTS = 1L << 22;

  private final Schedule schedule;
  private final int n;
  private final int words;
  private final int count;
  private final long[][] index;
  private final long[][] ranks;
  private final Map<Long, ArrayDeque<Message>> queues = new HashMap<>();

  private record Message(long[] index, long[] ranks, long length) {}

  private ScheduleChecker(Schedule schedule) {
    this.schedule = schedule;
    this.n = schedule.nRanks();
    this.words = (n + 63) / 64;
    if (schedule.count() * n > MAX_CHECKED_ELEMENTS) {
      throw new IllegalArgumentException(
          "cannot check "
              + schedule.count()
              + " elements x "
              + n
              + " ranks symbolically (limit "
              + MAX_CHECKED_ELEMENTS
              + "); check the same plan compiled for fewer elements");
    }
    this.count = (int) schedule.count();
    this.index = new long[n][count];
    this.ranks = new long[n][count * words];
  }

  /**
   * Checks {@code schedule} with {@code slots} messages of buffering per pair and channel.
   *
   * @throws ScheduleCheckException naming the rank, channel and step that goes wrong
   */
  public static void check(Schedule schedule, int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("slots : " + slots + " (expected: >= 1)");
    }
    new ScheduleChecker(schedule).run(slots);
  }

  /** {@link #check(Schedule, int)} with one slot: the strictest transport. */
  public static void check(Schedule schedule) {
    check(schedule, 1);
  }

  private void run(int slots) {
    initialise();
    int channels = schedule.channelCount();
    int[][] cursor = new int[n][channels];
    boolean progressed = true;
    boolean done = false;
    while (progressed && !done) {
      progressed = false;
      done = true;
      for (int r = 0; r < n; r++) {
        List<List<Step>> programs = schedule.rank(r).channels();
        for (int c = 0; c < programs.size(); c++) {
          List<Step> steps = programs.get(c);
          while (cursor[r][c] < steps.size() && tryStep(r, c, steps.get(cursor[r][c]), slots)) {
            cursor[r][c]++;
            progressed = true;
          }
          done &= cursor[r][c] == steps.size();
        }
      }
    }
    if (!done) {
      throw new ScheduleCheckException("deadlock in " + title() + ": " + describeBlocked(cursor));
    }
    for (Map.Entry<Long, ArrayDeque<Message>> q : queues.entrySet()) {
      if (!q.getValue().isEmpty()) {
        long key = q.getKey();
        throw new ScheduleCheckException(
            title()
                + ": rank "
                + src(key)
                + " sent "
                + q.getValue().size()
                + " message(s) on channel "
                + channel(key)
                + " that rank "
                + dst(key)
                + " never received");
      }
    }
    verifyResult();
  }

  private void initialise() {
    int root = schedule.root();
    long block = schedule.kind() == CollectiveKind.ALL_GATHER ? schedule.blockCount() : 0;
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < count; i++) {
        index[r][i] = i;
        boolean holds =
            switch (schedule.kind()) {
              case ALL_REDUCE, REDUCE_SCATTER -> true;
              case BROADCAST -> r == root;
              case ALL_GATHER -> i / block == r;
            };
        if (holds) {
          ranks[r][i * words + r / 64] |= 1L << (r % 64);
        }
      }
    }
  }

  private boolean tryStep(int r, int c, Step s, int slots) {
    if (s.peer() >= n || s.peer() == r) {
      throw fail(r, c, s, "peer " + s.peer() + " is not another rank of " + n);
    }
    if (s.end() > count) {
      throw fail(r, c, s, "range ends past the working buffer of " + count + " elements");
    }
    int from = (int) s.offset();
    int len = (int) s.count();
    if (s.kind() == StepKind.SEND) {
      ArrayDeque<Message> q = queue(r, s.peer(), c);
      if (q.size() >= slots) {
        return false;
      }
      long[] idx = java.util.Arrays.copyOfRange(index[r], from, from + len);
      long[] set = java.util.Arrays.copyOfRange(ranks[r], from * words, (from + len) * words);
      q.add(new Message(idx, set, len));
      return true;
    }
    ArrayDeque<Message> q = queue(s.peer(), r, c);
    Message m = q.peek();
    if (m == null) {
      return false;
    }
    if (m.length() != len) {
      throw fail(
          r, c, s, "receives " + len + " elements but rank " + s.peer() + " sent " + m.length());
    }
    q.poll();
    for (int k = 0; k < len; k++) {
      int i = from + k;
      if (s.kind() == StepKind.RECV_COPY) {
        index[r][i] = m.index()[k];
        System.arraycopy(m.ranks(), k * words, ranks[r], i * words, words);
        continue;
      }
      if (m.index()[k] != index[r][i]) {
        throw fail(r, c, s, "reduces element " + m.index()[k] + " into element " + index[r][i]);
      }
      for (int w = 0; w < words; w++) {
        long incoming = m.ranks()[k * words + w];
        if ((ranks[r][i * words + w] & incoming) != 0) {
          throw fail(r, c, s, "counts a rank's contribution to element " + i + " twice");
        }
        ranks[r][i * words + w] |= incoming;
      }
    }
    return true;
  }

  private void verifyResult() {
    long block = schedule.blockCount();
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < count; i++) {
        long[] want = new long[words];
        boolean checked = true;
        switch (schedule.kind()) {
          case ALL_REDUCE -> fill(want, n);
          case BROADCAST -> want[schedule.root() / 64] = 1L << (schedule.root() % 64);
          case ALL_GATHER -> want[(int) (i / block) / 64] = 1L << ((i / block) % 64);
          case REDUCE_SCATTER -> {
            checked = i / block == r;
            fill(want, n);
          }
        }
        if (!checked) {
          continue;
        }
        boolean ok = index[r][i] == i;
        for (int w = 0; w < words && ok; w++) {
          ok = ranks[r][i * words + w] == want[w];
        }
        if (!ok) {
          throw new ScheduleCheckException(
              title()
                  + ": rank "
                  + r
                  + " ends with element "
                  + i
                  + " = "
                  + describeValue(index[r][i], ranks[r], i)
                  + ", expected "
                  + describeValue(i, want, 0));
        }
      }
    }
  }

  private static void fill(long[] set, int n) {
    for (int r = 0; r < n; r++) {
      set[r / 64] |= 1L << (r % 64);
    }
  }

  private String describeValue(long idx, long[] set, int at) {
    List<Integer> members = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      if ((set[at * words + r / 64] & (1L << (r % 64))) != 0) {
        members.add(r);
      }
    }
    return "sum of element " + idx + " over ranks " + members;
  }

  private String describeBlocked(int[][] cursor) {
    List<String> blocked = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      List<List<Step>> programs = schedule.rank(r).channels();
      for (int c = 0; c < programs.size(); c++) {
        if (cursor[r][c] < programs.get(c).size()) {
          blocked.add(
              "rank "
                  + r
                  + " ch "
                  + c
                  + " waits at step "
                  + cursor[r][c]
                  + " "
                  + programs.get(c).get(cursor[r][c]));
        }
      }
    }
    return String.join("; ", blocked);
  }

  private ScheduleCheckException fail(int r, int c, Step s, String what) {
    return new ScheduleCheckException(
        title() + ": rank " + r + " ch " + c + " step " + s + " " + what);
  }

  private String title() {
    return schedule.kind()
        + " "
        + schedule.algorithm()
        + " ("
        + n
        + " ranks, "
        + count
        + " elements)";
  }

  private ArrayDeque<Message> queue(int src, int dst, int c) {
    return queues.computeIfAbsent(key(src, dst, c), k -> new ArrayDeque<>());
  }

  private static long key(int src, int dst, int c) {
    return ((long) src << 42) | ((long) dst << 21) | c;
  }

  private static int src(long key) {
    return (int) (key >>> 42);
  }

  private static int dst(long key) {
    return (int) ((key >>> 21) & 0x1FFFFF);
  }

  private static int channel(long key) {
    return (int) (key & 0x1FFFFF);
  }
}
