package dev.ddp4j.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The launcher's folder of {@link WorkerError} files, one per worker and attempt, created on first
 * use under {@code java.io.tmpdir} and deleted when the launcher exits.
 */
final class ErrorFiles {

  private static Path dir;

  private ErrorFiles() {}

  /** The file rank {@code s.rank()} of attempt {@code s.restartCount()} reports into (none yet). */
  static synchronized Path forWorker(WorkerSpec s) {
    try {
      if (dir == null) {
        dir = Files.createTempDirectory("ddp4j-errors-");
        Path d = dir;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(d), "ddp4j-error-files"));
      }
      Path f = dir.resolve("rank" + s.rank() + "-attempt" + s.restartCount() + ".properties");
      Files.deleteIfExists(f);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the workers' error files folder", e);
    }
  }

  private static void delete(Path d) {
    try (Stream<Path> files = Files.walk(d)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temp folder left behind is harmless
    }
  }
}
