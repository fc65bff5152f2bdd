package dev.ddp4j.launcher;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The summary the launcher prints when the job fails, root-cause ranks first (as torchrun does).
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
    b.append("root cause rank")
        .append(fs.size() > 1 ? "s " : " ")
        .append(
            fs.stream()
                .map(f -> Integer.toString(f.spec().rank()))
                .collect(Collectors.joining(", ")))
        .append(stoppedCount > 0 ? "; stopped the other " + stoppedCount + " worker(s)" : "")
        .append('\n');
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
      if (f.stderrTail().isEmpty()) {
        b.append("    (no stderr output)\n");
      } else {
        b.append("    last ").append(f.stderrTail().size()).append(" stderr line(s):\n");
        for (String line : f.stderrTail()) {
          b.append("      ").append(line).append('\n');
        }
      }
    }
    return b.toString();
  }
}
