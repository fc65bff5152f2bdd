package dev.ddp4j.launcher.doctor;

import dev.ddp4j.launcher.JsonText;
import java.util.List;
import java.util.Locale;

/**
 * The doctor's output: one line per finding and a last line with the worst; or, with {@code
 * --json}, {@code {"host": ..., "worst": ..., "checks": [{"status", "check", "saw", "fix"}]}}.
 */
final class DoctorReport {

  private DoctorReport() {}

  static Finding.Status worst(List<Finding> findings) {
    Finding.Status w = Finding.Status.OK;
    for (Finding f : findings) {
      if (f.status().compareTo(w) > 0) {
        w = f.status();
      }
    }
    return w;
  }

  static String text(String host, List<Finding> findings) {
    StringBuilder b = new StringBuilder();
    findings.forEach(f -> b.append(f.line()).append('\n'));
    long warn = findings.stream().filter(f -> f.status() == Finding.Status.WARN).count();
    long fail = findings.stream().filter(f -> f.status() == Finding.Status.FAIL).count();
    b.append(
        String.format(
            Locale.ROOT,
            "doctor on %s: %s (%d checks, %d WARN, %d FAIL)%n",
            host,
            worst(findings),
            findings.size(),
            warn,
            fail));
    return b.toString();
  }

  static String json(String host, List<Finding> findings) {
    StringBuilder b = new StringBuilder("{\"host\": ").append(JsonText.str(host));
    b.append(", \"worst\": ")
        .append(JsonText.str(worst(findings).name()))
        .append(", \"checks\": [");
    for (int i = 0; i < findings.size(); i++) {
      Finding f = findings.get(i);
      b.append(i == 0 ? "\n  " : ",\n  ")
          .append("{\"status\": ")
          .append(JsonText.str(f.status().name()))
          .append(", \"check\": ")
          .append(JsonText.str(f.check()))
          .append(", \"saw\": ")
          .append(JsonText.str(f.saw()))
          .append(", \"fix\": ")
          .append(JsonText.str(f.fix()))
          .append('}');
    }
    return b.append("\n]}").toString();
  }
}
