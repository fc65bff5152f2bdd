package dev.ddp4j.collectives.stall;

import dev.ddp4j.Store;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.spi.Settings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Says, while the ranks are still alive, why a collective does not finish. One daemon thread per
 * group publishes this rank's {@link CollectiveLedger} to the store every interval (a heartbeat, so
 * a rank that is SIGSTOPped or stuck outside any collective is still described by its last
 * snapshot, and its silence is visible). When this rank's oldest unfinished collective has waited
 * {@code DDP4J_STALL_WARN_SECONDS}, and again at twice and four times that and so on, it reads
 * every rank's snapshot and, if it is the rank that reports ({@link StallReport}), logs one WARN
 * line naming the ranks that hold the collective up and where each is. It never fails the
 * collective: the group's timeout still decides that, so a slow rank is not killed.
 *
 * <pre>
 * PREFIX stall/rank{r}     LedgerSnapshot of rank r, rewritten every interval
 * PREFIX stall/diagnosis   the latest report: seq=, at=, culprits=1,3, line=
 * </pre>
 *
 * The latest report this process saw ({@link #latest}) goes into the worker's error record, so the
 * launcher's failure summary blames the ranks it named when the job then fails by timeout.
 */
public final class StallInspector implements AutoCloseable {

  public static final String WARN_VAR = "DDP4J_STALL_WARN_SECONDS";
  static final long DEFAULT_WARN_MS = 30_000;

  /** The inspectors of this process, so a snapshot can say what another group waits in. */
  private static final Set<StallInspector> LIVE = ConcurrentHashMap.newKeySet();

  private static volatile Diagnosis latest;

  /** A stall report: its line and the ranks it named. */
  public record Diagnosis(String group, long sequence, String line, List<Integer> culprits) {}

  private final CollectiveLedger ledger;
  private final Store store;
  private final String prefix;
  private final int rank;
  private final int size;
  private final long warnMs;
  private final long intervalMs;
  private final long staleMs;
  private final DebugLog log;
  private final Thread thread;
  private volatile boolean closed;
  private boolean storeErrorLogged;
  private CollectiveLedger.Call watched; // this rank's oldest unfinished collective, or null
  private long nextReportMs;
  private Diagnosis reported; // what this rank logged for the watched collective
  private Diagnosis adopted; // what another rank logged, read while this one waits

  private StallInspector(
      String group, Store store, String prefix, int rank, int size, long warnMs, DebugLog log) {
    this.ledger = new CollectiveLedger(group);
    this.store = store;
    this.prefix = prefix;
    this.rank = rank;
    this.size = size;
    this.warnMs = warnMs;
    // A few heartbeats per warning period, at most one a second (store load grows with ranks).
    this.intervalMs = Math.max(100, Math.min(1_000, warnMs / 8));
    this.staleMs = 1_000 + 3 * intervalMs;
    this.log = log;
    this.thread = warnMs > 0 && size > 1 ? new Thread(this::run, "ddp4j-stall-rank" + rank) : null;
  }

  /**
   * Starts the inspector of rank {@code rank}'s view of a group, publishing its first snapshot
   * before returning; an inspector that does nothing when {@code warnMs} is 0.
   *
   * @param group how lines name the group, e.g. {@code cpu group g0}
   * @param prefix the group's store prefix, ending with {@code /}, unique per attempt
   * @param warnMs how long a collective may wait before it is reported ({@link #warnMs})
   */
  public static StallInspector start(
      String group, Store store, String prefix, int rank, int size, long warnMs, DebugLog log) {
    StallInspector s = new StallInspector(group, store, prefix, rank, size, warnMs, log);
    if (s.thread != null) {
      LIVE.add(s);
      s.publish(System.currentTimeMillis(), null);
      s.thread.setDaemon(true);
      s.thread.start();
    }
    return s;
  }

  /** {@code DDP4J_STALL_WARN_SECONDS} in ms: default 30 s, 0 when {@code off} or 0. */
  public static long warnMs(Settings settings) {
    if (settings.text(WARN_VAR, "").equalsIgnoreCase("off")) {
      return 0;
    }
    double s =
        settings
            .parsed(WARN_VAR, Double::parseDouble, STALL_EXPECTED)
            .orElse(DEFAULT_WARN_MS / 1000.0);
    if (!(s >= 0 && s < 1e9)) {
      throw settings.invalid(WARN_VAR, STALL_EXPECTED);
    }
    return Math.round(s * 1000);
  }

  private static final String STALL_EXPECTED =
      "a number of seconds, e.g. 30, or off to turn the stall inspector off";

  /** Records a collective just issued (see {@link CollectiveLedger#issued}). */
  public void issued(Work work, Supplier<String> what) {
    if (thread != null) {
      ledger.issued(work, what);
    }
  }

  /** The stall report this process logged or read most recently, while that stall lasts. */
  public static Diagnosis latest() {
    return latest;
  }

  private void run() {
    while (!closed) {
      try {
        tick(System.currentTimeMillis());
      } catch (RuntimeException e) {
        if (!closed && !storeErrorLogged) {
          storeErrorLogged = true;
          log.log(
              DebugLog.Level.WARN,
              "stall inspector of "
                  + ledger.group()
                  + " failed ("
                  + e
                  + "); it keeps trying, stall reports may be missing meanwhile");
        }
      }
      try {
        Thread.sleep(intervalMs);
      } catch (InterruptedException e) {
        return; // closed
      }
    }
  }

  private void tick(long nowMs) {
    CollectiveLedger.Call p = ledger.oldestUnfinished();
    publish(nowMs, p);
    if (p != watched) {
      resolved(nowMs);
      watched = p;
      nextReportMs = warnMs;
    }
    if (p == null) {
      return;
    }
    long waitedMs = nowMs - p.wallMs;
    if (waitedMs < warnMs) {
      return;
    }
    if (waitedMs >= nextReportMs) {
      while (nextReportMs <= waitedMs) {
        nextReportMs *= 2; // 30, 60, 120 s ...
      }
      StallReport r = report(nowMs);
      if (r != null) {
        log.log(DebugLog.Level.WARN, r.line());
        reported = new Diagnosis(ledger.group(), p.sequence, r.line(), r.culprits());
        latest = reported;
        store.set(prefix + "stall/diagnosis", encode(reported, nowMs));
        return;
      }
    }
    if (reported == null) {
      adoptReport(p.wallMs);
    }
  }

  /**
   * The watched collective finished. If it succeeded, a stall reported on it is over; if it failed
   * (timed out), the report stays {@link #latest} for the worker's error record.
   */
  private void resolved(long nowMs) {
    if (watched == null || !watched.work.isSuccess()) {
      return;
    }
    Diagnosis d = latest;
    if (d != null && (d == reported || d == adopted)) {
      latest = null;
    }
    adopted = null;
    if (reported != null) {
      log.log(
          DebugLog.Level.WARN,
          "stall in "
              + ledger.group()
              + " over: "
              + watched.what.get()
              + " #"
              + watched.sequence
              + " finished after "
              + StallReport.seconds(nowMs - watched.wallMs));
      reported = null;
    }
  }

  private void publish(long nowMs, CollectiveLedger.Call pending) {
    CollectiveLedger.Call other = null;
    String otherGroup = null;
    for (StallInspector s : LIVE) {
      if (s != this && s.rank == rank) { // tests run several ranks in one JVM
        CollectiveLedger.Call c = s.ledger.oldestUnfinished();
        if (c != null && (other == null || c.wallMs < other.wallMs)) {
          other = c;
          otherGroup = s.ledger.group();
        }
      }
    }
    store.set(
        key(rank), LedgerSnapshot.encode(rank, nowMs, pending, ledger.recent(), otherGroup, other));
  }

  /** Every rank's snapshot, after a cheap look at the lowest ranks (usually one reports). */
  private StallReport report(long nowMs) {
    List<LedgerSnapshot> all = new ArrayList<>(Arrays.asList(new LedgerSnapshot[size]));
    List<Integer> order = new ArrayList<>();
    for (int q = 0; q < size; q++) {
      order.add(q);
    }
    int first = Math.min(rank, 8);
    read(all, order.subList(0, first));
    all.set(rank, LedgerSnapshot.decode(snapshotBytes(nowMs)));
    if (StallReport.of(ledger.group(), rank, all, nowMs, staleMs) == null) {
      return null;
    }
    read(all, order.subList(first, size));
    all.set(rank, LedgerSnapshot.decode(snapshotBytes(nowMs)));
    return StallReport.of(ledger.group(), rank, all, nowMs, staleMs);
  }

  private byte[] snapshotBytes(long nowMs) {
    return LedgerSnapshot.encode(
        rank, nowMs, ledger.oldestUnfinished(), ledger.recent(), null, null);
  }

  private void read(List<LedgerSnapshot> into, List<Integer> ranks) {
    List<String> keys = ranks.stream().map(this::key).toList();
    if (keys.isEmpty()) {
      return;
    }
    if (store.check(keys)) {
      List<byte[]> values = store.multiGet(keys, Duration.ofSeconds(5));
      for (int i = 0; i < keys.size(); i++) {
        into.set(ranks.get(i), LedgerSnapshot.decode(values.get(i)));
      }
      return;
    }
    for (int i = 0; i < keys.size(); i++) { // some rank never published: read the others
      if (store.check(List.of(keys.get(i)))) {
        into.set(
            ranks.get(i), LedgerSnapshot.decode(store.get(keys.get(i), Duration.ofSeconds(5))));
      }
    }
  }

  /** Takes the report another rank logged for this stall, for this process's error record. */
  private void adoptReport(long sinceMs) {
    String k = prefix + "stall/diagnosis";
    if (!store.check(List.of(k))) {
      return;
    }
    Diagnosis d = decode(store.get(k, Duration.ofSeconds(5)), sinceMs);
    if (d != null) {
      adopted = d;
      latest = d;
    }
  }

  private String key(int r) {
    return prefix + "stall/rank" + r;
  }

  private static byte[] encode(Diagnosis d, long nowMs) {
    String culprits = String.join(",", d.culprits().stream().map(String::valueOf).toList());
    return ("seq="
            + d.sequence()
            + "\nat="
            + nowMs
            + "\nculprits="
            + culprits
            + "\nline="
            + d.line())
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The diagnosis in {@code bytes} if it was written after {@code sinceMs}, else null. */
  private Diagnosis decode(byte[] bytes, long sinceMs) {
    long seq = -1;
    long at = 0;
    List<Integer> culprits = new ArrayList<>();
    String line = "";
    for (String l : new String(bytes, StandardCharsets.UTF_8).split("\n", 4)) {
      int eq = l.indexOf('=');
      String v = l.substring(eq + 1);
      switch (l.substring(0, Math.max(0, eq))) {
        case "seq" -> seq = Long.parseLong(v);
        case "at" -> at = Long.parseLong(v);
        case "culprits" -> {
          for (String c : v.split(",")) {
            if (!c.isBlank()) {
              culprits.add(Integer.parseInt(c));
            }
          }
        }
        case "line" -> line = v;
        default -> {}
      }
    }
    return at < sinceMs ? null : new Diagnosis(ledger.group(), seq, line, List.copyOf(culprits));
  }

  @Override
  public void close() {
    if (thread == null || closed) {
      return;
    }
    closed = true;
    LIVE.remove(this);
    thread.interrupt();
  }
}
