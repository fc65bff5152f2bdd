package dev.ddp4j.collectives.stall;

import dev.ddp4j.Work;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The collectives one rank of a group has issued and not yet seen finish, plus the last few it
 * issued, each with the thread that issued it. Backends call {@link #issued} once per collective
 * (the only cost on their path: an entry and a lock nobody else takes but the inspector, a few
 * times a second; CallSiteBench); the {@link StallInspector} reads it, and takes call sites from
 * the issuing threads ({@link CallSite}) off that path. Completion is asked of the {@link Work}
 * itself, so neither backend reports it.
 */
public final class CollectiveLedger {

  /** How many of the latest calls a snapshot shows. */
  static final int RECENT = 4;

  /**
   * Past this many unfinished calls, issuing asks the oldest whether it finished (a driver call on
   * cuda), so a rank that never awaits does not grow the queue without bound.
   */
  private static final int TRIM_ABOVE = 64;

  /** One issued collective. */
  static final class Call {
    final long sequence;
    final Supplier<String> what;
    final Work work;
    final long wallMs;
    final Thread thread;

    /** Where {@link #thread} was when the inspector first saw this call unfinished; or null. */
    private volatile String site;

    Call(long sequence, Supplier<String> what, Work work, long wallMs, Thread thread) {
      this.sequence = sequence;
      this.what = what;
      this.work = work;
      this.wallMs = wallMs;
      this.thread = thread;
    }

    /** This call's site, taken from its thread the first time it is asked. */
    String site() {
      String s = site;
      if (s == null) {
        s = CallSite.of(thread);
        site = s;
      }
      return s;
    }

    /**
     * {@code sequence|what|wall-clock ms issued|where}, e.g. {@code 17|allReduce of 4096 float32
     * with SUM|1718000000000|Train.main(Train.java:9)}; {@code where} may be empty.
     */
    String encode(String where) {
      return sequence + "|" + clean(what.get()) + "|" + wallMs + "|" + clean(where);
    }

    private static String clean(String s) {
      return s == null ? "" : s.replace('|', '/').replace('\n', ' ');
    }
  }

  private final String group;
  private final ArrayDeque<Call> unfinished = new ArrayDeque<>();
  private final Call[] recent = new Call[RECENT];
  private long issued;

  /**
   * @param group how lines name the group, e.g. {@code cpu group g0}
   */
  public CollectiveLedger(String group) {
    this.group = group;
  }

  public String group() {
    return group;
  }

  /** Records a collective just issued; {@code what} is asked only when a snapshot is taken. */
  public void issued(Work work, Supplier<String> what) {
    Thread thread = Thread.currentThread();
    long wallMs = System.currentTimeMillis();
    synchronized (this) {
      Call c = new Call(work.sequenceNumber(), what, work, wallMs, thread);
      recent[(int) (issued++ % RECENT)] = c;
      unfinished.addLast(c);
      if (unfinished.size() > TRIM_ABOVE && unfinished.peekFirst().work.isCompleted()) {
        unfinished.pollFirst();
      }
    }
  }

  /** The oldest issued collective that has not finished, or null; forgets finished ones. */
  synchronized Call oldestUnfinished() {
    while (!unfinished.isEmpty() && unfinished.peekFirst().work.isCompleted()) {
      unfinished.pollFirst();
    }
    return unfinished.peekFirst();
  }

  /** The latest calls, oldest first. */
  synchronized List<Call> recent() {
    List<Call> out = new ArrayList<>(RECENT);
    for (long s = Math.max(0, issued - RECENT); s < issued; s++) {
      out.add(recent[(int) (s % RECENT)]);
    }
    return out;
  }
}
