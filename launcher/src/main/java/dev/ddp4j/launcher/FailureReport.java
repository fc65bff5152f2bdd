package dev.ddp4j.launcher;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The summary the launcher prints when the job fails, root-cause ranks first (as torchrun does).
 *
 * <p>When every failed worker failed because a collective timed out waiting for other ranks, those
 * other ranks are the root cause (they never called it: stuck, or on another code path), and the
 * report names them, not the ranks that waited. Where the stall inspector reported the stall before
 * the timeout, the ranks its report named are the root cause (it also sees a rank that called the
 * collective and then stopped), and its line is shown. Each failure is said once: a worker whose
 * stderr the console already showed gets one line (its exception, or its last stderr line) instead
 * of a second copy of its stack trace.
 */
final class FailureReport {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'").withZone(ZoneOffset.UTC);

  private FailureReport() {}

  static String format(GroupOutcome o, int stoppedCount, int restarts) {
    StringBuilder b = new StringBuilder();
    List<GroupOutcome.Failure> fs = o.failures();
    b.append("[launcher] job failed")
        .append(restarts > 0 ? " after " + restarts + " restart(s)" : "")
        .append(": ");
    if (o.kind() == GroupOutcome.Kind.STOPPED) {
      return b.append(o.externalReason()).append('\n').toString();
    }
    Set<Integer> stalled = stalledRanks(fs);
    Set<Integer> absent = absentRanks(fs);
    if (!stalled.isEmpty()) {
      b.append(ranks("root cause rank", List.copyOf(stalled)))
          .append(" (named by the stall inspector before ")
          .append(ranks("rank", fs.stream().map(f -> f.spec().rank()).toList()))
          .append(" timed out)");
    } else if (absent.isEmpty()) {
      b.append(ranks("root cause rank", fs.stream().map(f -> f.spec().rank()).toList()));
    } else {
      b.append(ranks("root cause rank", List.copyOf(absent)))
          .append(" (never arrived at the collective that ")
          .append(ranks("rank", fs.stream().map(f -> f.spec().rank()).toList()))
          .append(" timed out waiting for)");
    }
    b.append(stoppedCount > 0 ? "; stopped the other " + stoppedCount + " worker(s)" : "")
        .append('\n');
    if (!stalled.isEmpty()) {
      fs.stream()
          .map(f -> f.error().get().stallReport())
          .filter(r -> !r.isEmpty())
          .findFirst()
          .ifPresent(r -> b.append("  ").append(r).append('\n'));
    }
    for (GroupOutcome.Failure f : fs) {
      b.append("  rank ")
          .append(f.spec().rank())
          .append(" (local rank ")
          .append(f.spec().localRank())
          .append(", node ")
          .append(f.spec().groupRank())
          .append(") on host ")
          .append(f.host())
          .append(": ")
          .append(ExitStatus.describe(f.exitCode()))
          .append(" at ")
          .append(TIME.format(f.at()))
          .append('\n');
      detail(b, f);
    }
    return b.toString();
  }

  private static void detail(StringBuilder b, GroupOutcome.Failure f) {
    if (f.error().isPresent()) {
      b.append("    ").append(f.error().get().oneLine()).append('\n');
      if (!f.stderrOnConsole() && !f.error().get().config()) {
        tail(b, f.stderrTail());
      }
      return;
    }
    if (f.stderrTail().isEmpty()) {
      b.append("    (no stderr output)\n");
    } else if (f.stderrOnConsole()) {
      List<String> lines = f.stderrTail().stream().filter(l -> !l.isBlank()).toList();
      b.append("    last stderr line: ")
          .append(lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip())
          .append('\n');
    } else {
      tail(b, f.stderrTail());
    }
  }

  private static void tail(StringBuilder b, List<String> tail) {
    b.append("    last ").append(tail.size()).append(" stderr line(s):\n");
    for (String line : tail) {
      b.append("      ").append(line).append('\n');
    }
  }

  /**
   * The ranks that the failed workers' timeouts name as never arrived, less the failed ones; empty
   * unless every failure is such a timeout.
   */
  private static Set<Integer> absentRanks(List<GroupOutcome.Failure> fs) {
    Set<Integer> absent = new TreeSet<>();
    for (GroupOutcome.Failure f : fs) {
      if (f.error().isEmpty() || f.error().get().missingRanks().isEmpty()) {
        return Set.of();
      }
      absent.addAll(f.error().get().missingRanks());
    }
    fs.forEach(f -> absent.remove(f.spec().rank()));
    return absent;
  }

  /**
   * The ranks the stall inspector named in the failed workers' records, less the failed ones; empty
   * unless every failure is a timeout (or a peer's report of one) and some record names ranks.
   */
  private static Set<Integer> stalledRanks(List<GroupOutcome.Failure> fs) {
    Set<Integer> stalled = new TreeSet<>();
    for (GroupOutcome.Failure f : fs) {
      String e = f.error().map(WorkerError::exception).orElse("");
      if (!e.endsWith(".DdpTimeoutException") && !e.endsWith(".PeerFailureException")) {
        return Set.of();
      }
      stalled.addAll(f.error().get().stalledRanks());
    }
    fs.forEach(f -> stalled.remove(f.spec().rank()));
    return stalled;
  }

  private static String ranks(String word, List<Integer> ranks) {
    return word
        + (ranks.size() > 1 ? "s " : " ")
        + ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }
}
