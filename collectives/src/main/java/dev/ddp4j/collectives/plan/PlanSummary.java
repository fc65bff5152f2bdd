package dev.ddp4j.collectives.plan;

import java.util.ArrayList;
import java.util.List;

/** One line that says which all-reduce algorithm a plan runs at which sizes, for the INFO log. */
public final class PlanSummary {

  private PlanSummary() {}

  /** For example {@code ring 8 B-512 KiB, twoshot 1 MiB-4 GiB}: the table's rows, merged. */
  public static String bySize(Plan plan) {
    List<String> parts = new ArrayList<>();
    List<Prediction> rows = plan.table();
    int start = 0;
    for (int i = 1; i <= rows.size(); i++) {
      if (i == rows.size() || rows.get(i).chosen() != rows.get(start).chosen()) {
        String from = Sizes.human(rows.get(start).bytes());
        String to = Sizes.human(rows.get(i - 1).bytes());
        parts.add(rows.get(start).chosen().id() + " " + (i - 1 == start ? from : from + "-" + to));
        start = i;
      }
    }
    return String.join(", ", parts);
  }
}
