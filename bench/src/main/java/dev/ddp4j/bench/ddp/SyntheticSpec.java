package dev.ddp4j.bench.ddp;

import dev.ddp4j.runtime.cuda.CommStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The synthetic model of {@code bench ddp}, parsed from its arguments.
 *
 * <ul>
 *   <li>{@code --layers}: parameter counts per layer, comma separated, each {@code SIZE} or {@code
 *       COUNTxSIZE} ({@code COUNT} equal layers), with decimal suffixes K, M, G: {@code 8x16.75M}
 *       is 134 M parameters in 8 layers.
 *   <li>{@code --backward-us}: one number, the whole backward in microseconds spread over the
 *       layers in proportion to their sizes; or one number per layer, comma separated, layer 0
 *       first.
 *   <li>{@code --steps}: timed steps per mode; 0 (default) picks about 2 s of steps, 10 to 300.
 *   <li>{@code --trace}: a path prefix; each rank writes {@code PREFIX.rank<R>.json}.
 *   <li>{@code --first-bucket-mb}, {@code --bucket-cap-mb}: the bucket plan's caps in MiB (defaults
 *       1 and 25, PyTorch DDP's).
 *   <li>{@code --comm-priority}: {@code highest} (default) or {@code normal}, the communication
 *       stream's priority.
 * </ul>
 */
public record SyntheticSpec(
    long[] layerParams,
    long[] backwardNs,
    int steps,
    Path traceFile,
    long firstBucketBytes,
    long bucketCapBytes,
    CommStream.Priority commPriority) {

  public static SyntheticSpec parse(List<String> args) {
    String layers = option(args, "--layers", null);
    String backward = option(args, "--backward-us", null);
    if (layers == null || backward == null) {
      throw new IllegalArgumentException(
          "bench ddp needs --layers and --backward-us (e.g. --layers 8x16.75M --backward-us 1500)");
    }
    long[] params = parseLayers(layers);
    long[] ns = parseBackward(backward, params);
    int steps = Integer.parseInt(option(args, "--steps", "0"));
    if (steps <= 0) {
      long total = 0;
      for (long n : ns) {
        total += n;
      }
      steps = (int) Math.max(10, Math.min(300, 2_000_000_000L / Math.max(1, total * 13 / 10)));
    }
    String trace = option(args, "--trace", null);
    return new SyntheticSpec(
        params,
        ns,
        steps,
        trace == null ? null : Path.of(trace),
        mebibytes(args, "--first-bucket-mb", "1"),
        mebibytes(args, "--bucket-cap-mb", "25"),
        priority(option(args, "--comm-priority", "highest")));
  }

  private static long mebibytes(List<String> args, String name, String dflt) {
    String v = option(args, name, dflt);
    try {
      double mib = Double.parseDouble(v);
      if (mib > 0) {
        return Math.max(1, Math.round(mib * (1 << 20)));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        name + " " + v + " (expected: a positive number of MiB, e.g. " + dflt + ")");
  }

  private static CommStream.Priority priority(String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "highest" -> CommStream.Priority.HIGHEST;
      case "normal" -> CommStream.Priority.NORMAL;
      default ->
          throw new IllegalArgumentException(
              "--comm-priority " + v + " (expected: highest or normal)");
    };
  }

  public long totalBackwardNs() {
    long t = 0;
    for (long n : backwardNs) {
      t += n;
    }
    return t;
  }

  static long[] parseLayers(String text) {
    List<Long> out = new ArrayList<>();
    for (String item : text.split(",")) {
      String t = item.trim().toLowerCase(Locale.ROOT);
      int x = t.indexOf('x');
      int count = x < 0 ? 1 : Integer.parseInt(t.substring(0, x));
      long size = parseCount(x < 0 ? t : t.substring(x + 1), text);
      if (count < 1 || size < 1) {
        throw new IllegalArgumentException(
            "--layers " + text + ": '" + item + "' (expected: SIZE or COUNTxSIZE, both >= 1)");
      }
      for (int i = 0; i < count; i++) {
        out.add(size);
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private static long parseCount(String t, String whole) {
    double unit = 1;
    char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
    if (last == 'k' || last == 'm' || last == 'g') {
      unit = last == 'k' ? 1e3 : last == 'm' ? 1e6 : 1e9;
      t = t.substring(0, t.length() - 1);
    }
    try {
      return Math.round(Double.parseDouble(t) * unit);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--layers " + whole + ": '" + t + "' is not a count (expected: e.g. 4096, 16.75M)");
    }
  }

  static long[] parseBackward(String text, long[] params) {
    String[] items = text.split(",");
    long[] ns = new long[params.length];
    if (items.length == 1) {
      double totalNs = Double.parseDouble(items[0].trim()) * 1e3;
      long all = 0;
      for (long p : params) {
        all += p;
      }
      for (int i = 0; i < params.length; i++) {
        ns[i] = Math.round(totalNs * params[i] / all);
      }
    } else if (items.length == params.length) {
      for (int i = 0; i < params.length; i++) {
        ns[i] = Math.round(Double.parseDouble(items[i].trim()) * 1e3);
      }
    } else {
      throw new IllegalArgumentException(
          "--backward-us "
              + text
              + ": "
              + items.length
              + " values for "
              + params.length
              + " layers (expected: one total, or one per layer)");
    }
    return ns;
  }

  private static String option(List<String> args, String name, String dflt) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals(name) && i + 1 < args.size()) {
        return args.get(i + 1);
      }
      if (a.startsWith(name + "=")) {
        return a.substring(name.length() + 1);
      }
    }
    return dflt;
  }
}
