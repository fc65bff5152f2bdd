package dev.ddp4j.bench.groupcreation;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The worker of {@link GroupCreationBenchmark}, run under the launcher: stamps the wall clock
 * around {@code Ddp.init()} (store connect and group creation), publishes the stamps through the
 * job's store, and on rank 0 prints one line: group creation = the last rank ready minus the last
 * rank's arrival (max end - max start: what no rank can start before, so JVM start-up skew drops
 * out), and the longest init of any rank. Uses only ddp-api, so it runs against any launcher's
 * product classes (the launcher puts its own jar after this class's folder or jar).
 */
public final class GroupCreationProbe {

  /** The line rank 0 prints; GroupCreationBenchmark looks for it. */
  static final String MARK = "group-creation:";

  // Wall clock in ns, anchored once to currentTimeMillis and advanced by nanoTime: the ranks of a
  // host read one clock, to within the anchor's millisecond.
  private static final long ANCHOR_WALL_NS = System.currentTimeMillis() * 1_000_000L;
  private static final long ANCHOR_NANO = System.nanoTime();

  private GroupCreationProbe() {}

  private static long wallNs() {
    return ANCHOR_WALL_NS + (System.nanoTime() - ANCHOR_NANO);
  }

  public static void main(String[] args) {
    long startNs = wallNs();
    ProcessGroup pg = Ddp.init();
    long endNs = wallNs();
    try {
      Store store = pg.store();
      String prefix = "ddp4j/bench/group-creation/";
      store.set(prefix + pg.rank(), (startNs + " " + endNs).getBytes(StandardCharsets.UTF_8));
      if (pg.rank() == 0) {
        List<String> keys = new ArrayList<>();
        for (int r = 0; r < pg.size(); r++) {
          keys.add(prefix + r);
        }
        long maxStart = Long.MIN_VALUE;
        long maxEnd = Long.MIN_VALUE;
        long maxInit = 0;
        for (byte[] v : store.multiGet(keys, Duration.ofSeconds(120))) {
          String[] f = new String(v, StandardCharsets.UTF_8).split(" ");
          long s = Long.parseLong(f[0]);
          long e = Long.parseLong(f[1]);
          maxStart = Math.max(maxStart, s);
          maxEnd = Math.max(maxEnd, e);
          maxInit = Math.max(maxInit, e - s);
        }
        System.out.printf(
            Locale.ROOT,
            "%s ranks=%d backend=%s creation_ms=%.3f max_init_ms=%.3f%n",
            MARK,
            pg.size(),
            pg.backend(),
            (maxEnd - maxStart) / 1e6,
            maxInit / 1e6);
      }
    } finally {
      pg.close();
    }
  }
}
