package dev.ddp4j.collectives.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file store: the Store contract, plus atomic adds from another JVM through the file lock. */
class FileStoreTest extends StoreContractTest {

  @TempDir Path dir;

  @Override
  Store newClient() {
    return FileStore.open(dir.resolve("store"), Duration.ofSeconds(20));
  }

  @Test
  void addsFromAnotherProcessShouldInterleaveWithoutLoss()
      throws IOException, InterruptedException {
    Path file = dir.resolve("shared");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                FileStoreAdder.class.getName(),
                file.toString(),
                "300")
            .redirectErrorStream(true)
            .start();
    try (Store s = FileStore.open(file, Duration.ofSeconds(20))) {
      for (int i = 0; i < 300; i++) {
        s.add("n", 1);
      }
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as(new String(child.getInputStream().readAllBytes())).isZero();
      assertThat(s.add("n", 0)).isEqualTo(600);
    } finally {
      child.destroyForcibly();
    }
    assertThat(Files.size(file)).isPositive();
  }
}
