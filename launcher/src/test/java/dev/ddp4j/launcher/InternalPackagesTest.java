package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.InternalPackages;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The launcher is a command line (launcher.jar), not an API: every package is marked so. */
class InternalPackagesTest {

  @Test
  void shouldMarkEveryPackageOfTheLauncherAsInternal() throws Exception {
    Path sources = Path.of("src/main/java");

    assertThat(InternalPackages.packages(sources)).contains("dev.ddp4j.launcher.bench");
    assertThat(InternalPackages.unmarked(sources, Path.of("target/classes"))).isEmpty();
  }
}
