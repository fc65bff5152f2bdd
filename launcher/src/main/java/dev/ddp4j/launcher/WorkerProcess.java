package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** One running worker JVM with the pumps that carry its output. */
final class WorkerProcess {

  final WorkerSpec spec;
  final Process process;

  /** Where {@link WorkerBootstrap} records why the program failed ({@link WorkerError}). */
  final Path errorFile;

  /** Whether this worker's stderr reaches the console (else only its log file, or nowhere). */
  final boolean stderrOnConsole;

  private final OutputPump out;
  private final OutputPump err;

  private WorkerProcess(
      WorkerSpec spec,
      Process process,
      Path errorFile,
      boolean stderrOnConsole,
      OutputPump out,
      OutputPump err) {
    this.spec = spec;
    this.process = process;
    this.errorFile = errorFile;
    this.stderrOnConsole = stderrOnConsole;
    this.out = out;
    this.err = err;
  }

  static WorkerProcess start(
      LaunchConfig c, WorkerSpec s, InitMethod store, Optional<Path> numactl) {
    ProcessBuilder pb = new ProcessBuilder(WorkerCommand.argv(c, s, numactl));
    WorkerCommand.environment(pb.environment(), c, s, store);
    Path errorFile = ErrorFiles.forWorker(s);
    pb.environment().put(WorkerError.FILE_VAR, errorFile.toString());
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start worker rank "
              + s.rank()
              + " ("
              + pb.command().get(0)
              + "): "
              + e.getMessage(),
          e);
    }
    boolean shown = c.localRanksFilter().isEmpty() || c.localRanksFilter().contains(s.localRank());
    String prefix = "[rank" + s.rank() + "]:";
    Path dir = c.logDir() == null ? null : c.logDir().resolve(Integer.toString(s.restartCount()));
    OutputMode m = c.output();
    OutputPump out =
        new OutputPump(
                p.getInputStream(),
                "rank" + s.rank() + "-stdout",
                prefix,
                shown && m.toConsole(OutputMode.STDOUT) ? System.out : null,
                dir != null && m.toFile(OutputMode.STDOUT)
                    ? dir.resolve("rank" + s.rank() + ".out")
                    : null)
            .start();
    OutputPump err =
        new OutputPump(
                p.getErrorStream(),
                "rank" + s.rank() + "-stderr",
                prefix,
                shown && m.toConsole(OutputMode.STDERR) ? System.err : null,
                dir != null && m.toFile(OutputMode.STDERR)
                    ? dir.resolve("rank" + s.rank() + ".err")
                    : null)
            .start();
    boolean stderrOnConsole = shown && m.toConsole(OutputMode.STDERR);
    return new WorkerProcess(s, p, errorFile, stderrOnConsole, out, err);
  }

  /** Waits a little for the output to drain, then returns the last stderr lines. */
  List<String> stderrTail() {
    out.join(2000);
    err.join(2000);
    return err.tail();
  }

  /** Waits up to {@code millis} for both streams to end, so no last line is lost at exit. */
  void drain(long millis) {
    long deadline = System.nanoTime() + millis * 1_000_000;
    out.join(Math.max(1, millis));
    err.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
  }
}
