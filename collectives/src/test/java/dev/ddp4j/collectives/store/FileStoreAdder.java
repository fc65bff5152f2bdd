package dev.ddp4j.collectives.store;

import dev.ddp4j.Store;
import java.nio.file.Path;
import java.time.Duration;

/** Child process of {@link FileStoreTest}: adds 1 to key "n" of a file store N times. */
public final class FileStoreAdder {
  private FileStoreAdder() {}

  public static void main(String[] args) {
    try (Store s = FileStore.open(Path.of(args[0]), Duration.ofSeconds(20))) {
      for (int i = 0; i < Integer.parseInt(args[1]); i++) {
        s.add("n", 1);
      }
    }
  }
}
