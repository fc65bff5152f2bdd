package dev.ddp4j.collectives.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs a probing command (nvidia-smi, numactl, lspci) and returns what it printed, or empty when it
 * is missing, fails or runs past its timeout: probes are optional, so none of these is an error.
 */
public final class CommandOutput {

  private CommandOutput() {}

  /** stdout and stderr of {@code command} if it exits 0 within {@code timeout}. */
  public static Optional<String> of(Duration timeout, String... command) {
    Path out = null;
    try {
      // Output goes to a file, so a command that fills a pipe cannot hang past its timeout.
      out = Files.createTempFile("ddp4j-probe", ".out");
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      return p.exitValue() == 0
          ? Optional.of(Files.readString(out, StandardCharsets.UTF_8))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          // a temporary file left behind costs nothing
        }
      }
    }
  }
}
