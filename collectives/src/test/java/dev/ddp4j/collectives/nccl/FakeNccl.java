package dev.ddp4j.collectives.nccl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Builds the test stand-in for libnccl.so.2 (resources/nccl/fake_nccl.c) with gcc, for the CI tests
 * that load a library for real where there is no NCCL.
 */
final class FakeNccl {

  private FakeNccl() {}

  /** {@code dir/libnccl.so.2} built from the stub, or why it could not be (no gcc). */
  static Optional<Path> build(Path dir) throws IOException, InterruptedException {
    Path source = dir.resolve("fake_nccl.c");
    try (InputStream in = FakeNccl.class.getResourceAsStream("/nccl/fake_nccl.c")) {
      Files.write(source, in.readAllBytes());
    }
    Path lib = dir.resolve("libnccl.so.2");
    Process gcc;
    try {
      gcc =
          new ProcessBuilder("gcc", "-shared", "-fPIC", "-o", lib.toString(), source.toString())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      return Optional.empty(); // no gcc on this machine
    }
    String out = new String(gcc.getInputStream().readAllBytes());
    if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
      throw new AssertionError("gcc failed on fake_nccl.c: " + out);
    }
    return Optional.of(lib);
  }
}
