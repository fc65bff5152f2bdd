package dev.ddp4j.collectives.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.Ddp;
import dev.ddp4j.InitMethod;
import dev.ddp4j.InitOptions;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ddp.connectStore finds this module's provider through ServiceLoader for each init method. */
class DefaultStoreProviderTest {

  @TempDir Path dir;

  @Test
  void envInitShouldResolveToTheTcpStoreAtMasterAddrAndPort() {
    // The secret comes from this process's environment, where the build sets none: empty.
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, "")) {
      Map<String, String> env =
          Map.of(
              "RANK", "0",
              "WORLD_SIZE", "1",
              "MASTER_ADDR", "127.0.0.1",
              "MASTER_PORT", Integer.toString(server.port()));
      WorkerEnvironment w =
          WorkerEnvironment.resolve(
              InitOptions.fromEnvironment(dev.ddp4j.spi.Settings.empty()),
              dev.ddp4j.spi.Settings.of(env));
      try (Store s = Ddp.connectStore(w, Duration.ofSeconds(10))) {
        assertThat(s).isInstanceOf(TcpStoreClient.class);
        StoreBarrier.await(s, "solo", 0, 1, Duration.ofSeconds(5));
        assertThat(s.numKeys()).isPositive();
      }
    }
  }

  @Test
  void fileInitShouldOpenTheFileStore() {
    Path file = dir.resolve("rdzv");
    WorkerEnvironment w =
        new WorkerEnvironment(0, 1, 0, 1, 0, 0, InitMethod.parse("file://" + file));
    try (Store s = Ddp.connectStore(w, Duration.ofSeconds(10))) {
      assertThat(s).isInstanceOf(FileStore.class);
      s.set("k", new byte[] {1});
    }
    assertThat(file).exists();
  }

  @Test
  void secretShouldComeFromTheVariableOrElseTheFile() throws Exception {
    Path f = dir.resolve("secret");
    java.nio.file.Files.writeString(f, "from-file\n");
    assertThat(
            StoreSecret.fromEnvironment(
                dev.ddp4j.spi.Settings.of(Map.of(StoreSecret.SECRET_VAR, "direct"))))
        .isEqualTo("direct");
    assertThat(
            StoreSecret.fromEnvironment(
                dev.ddp4j.spi.Settings.of(Map.of(StoreSecret.SECRET_FILE_VAR, f.toString()))))
        .isEqualTo("from-file");
    assertThat(StoreSecret.fromEnvironment(dev.ddp4j.spi.Settings.empty())).isEmpty();
    assertThat(StoreSecret.random()).hasSize(64).isNotEqualTo(StoreSecret.random());
  }
}
