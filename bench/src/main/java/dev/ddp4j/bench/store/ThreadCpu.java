package dev.ddp4j.bench.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of this process per thread name (digits stripped, so "ddp4j-store-server-3-1" and its
 * siblings add up), user and system, from {@code /proc/self/task}: where a store's CPU goes besides
 * Java code (the JIT's compiler threads, GC, system calls), which a sampling profiler does not
 * show.
 */
final class ThreadCpu {

  private ThreadCpu() {}

  /** One line per thread group with at least 10 ms, largest first; empty off Linux. */
  static String table() {
    Map<String, long[]> byName = new TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(t.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended while we listed
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String name = stat.substring(open + 1, close).replaceAll("[-#0-9 ]+$", "");
        String[] f = stat.substring(close + 2).split(" ");
        long[] acc = byName.computeIfAbsent(name, n -> new long[3]);
        acc[0] += Long.parseLong(f[11]); // utime, clock ticks
        acc[1] += Long.parseLong(f[12]); // stime
        acc[2]++;
      }
    } catch (IOException e) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    byName.entrySet().stream()
        .filter(e -> e.getValue()[0] + e.getValue()[1] >= 1)
        .sorted(
            (a, b) ->
                Long.compare(b.getValue()[0] + b.getValue()[1], a.getValue()[0] + a.getValue()[1]))
        .forEach(
            e ->
                out.append(
                    String.format(
                        "  %-24s threads %5d  user %6.2f s  sys %6.2f s%n",
                        e.getKey(),
                        e.getValue()[2],
                        e.getValue()[0] / 100.0,
                        e.getValue()[1] / 100.0)));
    return out.toString();
  }
}
