package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import java.util.Locale;

/** The nccl-tests-style table the bench prints: one row per size. */
final class BenchTable {

  private BenchTable() {}

  static String header(
      BenchCollective collective, int ranks, String backend, DataType type, ReduceOp op) {
    return String.format(
        Locale.ROOT,
        "# ddp4j bench: %s, %d ranks, backend %s, %s, %s, %s%n"
            + "#%11s %12s %9s %6s %5s %11s %9s %9s %7s%n"
            + "#%11s %12s %9s %6s %5s %11s %9s %9s %7s",
        collective.name().toLowerCase(Locale.ROOT),
        ranks,
        backend,
        type.ncclName(),
        reduces(collective) ? op.name().toLowerCase(Locale.ROOT) : "no reduction",
        // BenchCollective.start: all-reduce and broadcast in place, the other two out of place.
        collective == BenchCollective.ALLREDUCE || collective == BenchCollective.BROADCAST
            ? "in place"
            : "out of place",
        "size",
        "count",
        "type",
        "redop",
        "root",
        "time",
        "algbw",
        "busbw",
        "check",
        "(B)",
        "(elements)",
        "",
        "",
        "",
        "(us)",
        "(GB/s)",
        "(GB/s)",
        "");
  }

  static String row(
      long bytes,
      long count,
      DataType type,
      ReduceOp op,
      BenchCollective collective,
      int root,
      double us,
      double busFactor,
      long wrong) {
    double algbw = bytes / us / 1e3;
    return String.format(
        Locale.ROOT,
        "%12d %12d %9s %6s %5d %11.2f %9.3f %9.3f %7s",
        bytes,
        count,
        type.ncclName(),
        reduces(collective) ? op.name().toLowerCase(Locale.ROOT) : "none",
        collective == BenchCollective.BROADCAST ? root : -1,
        us,
        algbw,
        algbw * busFactor,
        wrong == 0 ? "OK" : wrong + " wrong");
  }

  private static boolean reduces(BenchCollective collective) {
    return collective == BenchCollective.ALLREDUCE || collective == BenchCollective.REDUCESCATTER;
  }
}
