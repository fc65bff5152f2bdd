package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One running worker JVM with the pumps that carry its output.
 *
 * @param errorFile where {@link WorkerBootstrap} records why the program failed ({@link
 *     WorkerError})
 * @param stderrOnConsole whether this worker's stderr reaches the console (else only its log file,
 *     or nowhere)
 */
record WorkerProcess(
    WorkerSpec spec,
    Process process,
    Path errorFile,
    boolean stderrOnConsole,
    OutputPump out,
    OutputPump err) {

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
    Path dir = c.logDir() == null ? null : c.logDir().resolve(Integer.toString(s.restartCount()));
    OutputPump out = pump(p, s, OutputMode.STDOUT, shown, c.output(), dir);
    OutputPump err = pump(p, s, OutputMode.STDERR, shown, c.output(), dir);
    boolean stderrOnConsole = shown && c.output().toConsole(OutputMode.STDERR);
    return new WorkerProcess(s, p, errorFile, stderrOnConsole, out, err);
  }

  /**
   * Carries the worker's {@code stream} ({@link OutputMode#STDOUT} or {@link OutputMode#STDERR}) to
   * the console, as {@code [rankR]:} lines, where it is {@code shown} and {@code m} lets it there,
   * and to {@code dir/rankR.out} or {@code .err} where {@code m} asks for files.
   */
  private static OutputPump pump(
      Process p, WorkerSpec s, int stream, boolean shown, OutputMode m, Path dir) {
    boolean stdout = stream == OutputMode.STDOUT;
    String name = "rank" + s.rank();
    return new OutputPump(
            stdout ? p.getInputStream() : p.getErrorStream(),
            name + (stdout ? "-stdout" : "-stderr"),
            "[" + name + "]:",
            shown && m.toConsole(stream) ? (stdout ? System.out : System.err) : null,
            dir != null && m.toFile(stream) ? dir.resolve(name + (stdout ? ".out" : ".err")) : null)
        .start();
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
