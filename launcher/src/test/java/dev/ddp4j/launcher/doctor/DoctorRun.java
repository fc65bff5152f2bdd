package dev.ddp4j.launcher.doctor;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.function.LongSupplier;
import picocli.CommandLine;

/** One in-process {@code launcher.jar doctor} run against a machine: its exit status and output. */
record DoctorRun(int exitStatus, String out, String err) {

  static DoctorRun of(Machine m, String... args) {
    return of(m, System::currentTimeMillis, args);
  }

  static DoctorRun of(Machine m, LongSupplier clockMs, String... args) {
    DoctorCommand cmd = new DoctorCommand();
    cmd.machine = m;
    cmd.clockMs = clockMs;
    CommandLine cl = new CommandLine(cmd);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int rc = cl.execute(args);
    return new DoctorRun(rc, out.toString(), err.toString());
  }

  /** The lines of check {@code name}. */
  List<String> lines(String name) {
    return out.lines()
        .filter(l -> l.matches("(OK|WARN|FAIL) +" + java.util.regex.Pattern.quote(name) + " .*"))
        .toList();
  }

  /** The one line of check {@code name}. */
  String line(String name) {
    List<String> l = lines(name);
    if (l.size() != 1) {
      throw new AssertionError("expected one line of " + name + " but got " + l + " in:\n" + out);
    }
    return l.get(0);
  }
}
