package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.collectives.plan.Sizes;
import java.util.ArrayList;
import java.util.List;

/**
 * The cuda group's all-reduce kernel at each size, as one line for {@code DDP4J_DEBUG=INFO} (the
 * cpu group prints its plan's the same way): {@code ll 8 B-256 KiB, oneshot 512 KiB-4 GiB}. A
 * message larger than a launch runs as launches of {@code maxLaunchBytes}, so its kernel is the one
 * chosen for that size.
 */
final class KernelBySize {

  /** Largest size listed: 4 GiB, as the planner's table. */
  static final long MAX_BYTES = 1L << 32;

  private KernelBySize() {}

  /**
   * @param ringOnly the group's pairs off its ring lack peer access: every launch is a ring
   */
  static String summary(
      AllReduceChooser chooser, int ranks, long maxLaunchBytes, boolean ringOnly) {
    List<String> parts = new ArrayList<>();
    AllReduceAlgorithm current = null;
    long from = 0;
    long last = 0;
    for (long bytes = 8; bytes <= MAX_BYTES; bytes <<= 1) {
      long launch = Math.min(bytes, maxLaunchBytes);
      AllReduceAlgorithm a =
          ringOnly
              ? chooser.chooseRing(launch, ranks, DataType.FLOAT32).algorithm()
              : chooser.choose(launch, ranks, DataType.FLOAT32).algorithm();
      if (a != current) {
        if (current != null) {
          parts.add(range(current, from, last));
        }
        current = a;
        from = bytes;
      }
      last = bytes;
    }
    parts.add(range(current, from, last));
    return String.join(", ", parts);
  }

  private static String range(AllReduceAlgorithm a, long from, long to) {
    String name = a.name().toLowerCase(java.util.Locale.ROOT).replace("_", "");
    return name + " " + Sizes.human(from) + (from == to ? "" : "-" + Sizes.human(to));
  }
}
