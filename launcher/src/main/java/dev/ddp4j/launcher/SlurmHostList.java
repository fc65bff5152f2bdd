package dev.ddp4j.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * Expands Slurm's compressed host lists, as {@code SLURM_JOB_NODELIST} gives them: {@code
 * gpu[01-03,07],login1} becomes {@code gpu01 gpu02 gpu03 gpu07 login1}; several bracket groups
 * multiply ({@code r[1-2]-n[3-4]} is four hosts), and zero padding is kept.
 */
final class SlurmHostList {

  private SlurmHostList() {}

  static List<String> expand(String list) {
    List<String> hosts = new ArrayList<>();
    for (String item : splitTopLevel(list)) {
      if (!item.isBlank()) {
        expandItem(item.trim(), hosts, list);
      }
    }
    return hosts;
  }

  /** Splits at commas that are not inside brackets. */
  private static List<String> splitTopLevel(String list) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < list.length(); i++) {
      char c = list.charAt(i);
      if (c == '[') {
        depth++;
      } else if (c == ']') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(list.substring(start, i));
        start = i + 1;
      }
    }
    out.add(list.substring(start));
    return out;
  }

  private static void expandItem(String item, List<String> out, String whole) {
    int open = item.indexOf('[');
    if (open < 0) {
      out.add(item);
      return;
    }
    int close = item.indexOf(']', open);
    if (close < 0) {
      throw new UsageException(
          "SLURM_JOB_NODELIST='" + whole + "' has an unclosed '[' (expected: e.g. gpu[01-04,07])");
    }
    String prefix = item.substring(0, open);
    String rest = item.substring(close + 1);
    for (String range : item.substring(open + 1, close).split(",")) {
      String[] ends = range.trim().split("-", 2);
      try {
        long from = Long.parseLong(ends[0]);
        long to = ends.length == 2 ? Long.parseLong(ends[1]) : from;
        int width = ends[0].length();
        for (long v = from; v <= to; v++) {
          // The rest may hold more bracket groups: expand it for every value of this one.
          expandItem(prefix + String.format("%0" + width + "d", v) + rest, out, whole);
        }
      } catch (NumberFormatException e) {
        throw new UsageException(
            "SLURM_JOB_NODELIST='"
                + whole
                + "' has the range '"
                + range
                + "' (expected: numbers, e.g. 01-04)");
      }
    }
  }
}
