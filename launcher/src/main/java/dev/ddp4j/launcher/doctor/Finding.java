package dev.ddp4j.launcher.doctor;

/**
 * One line of {@code launcher.jar doctor}: how bad, which check, what it saw and the fix (empty
 * where there is nothing to fix).
 */
record Finding(Status status, String check, String saw, String fix) {

  /** How bad a finding is, best first; the command exits 1 when the worst is {@link #FAIL}. */
  enum Status {
    OK,
    WARN,
    FAIL
  }

  static Finding ok(String check, String saw) {
    return new Finding(Status.OK, check, saw, "");
  }

  static Finding warn(String check, String saw, String fix) {
    return new Finding(Status.WARN, check, saw, fix);
  }

  static Finding fail(String check, String saw, String fix) {
    return new Finding(Status.FAIL, check, saw, fix);
  }

  /** {@code WARN shm /dev/shm has 64.0 MiB free ... -- fix: docker run --shm-size=1g}. */
  String line() {
    return String.format(
        java.util.Locale.ROOT,
        "%-4s %-11s %s%s",
        status,
        check,
        saw,
        fix.isEmpty() ? "" : " -- fix: " + fix);
  }
}
