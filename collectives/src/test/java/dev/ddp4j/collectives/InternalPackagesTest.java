package dev.ddp4j.collectives;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.testing.InternalPackages;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Nothing of collectives is API: users reach its backends through ddp-api's Ddp.init. */
class InternalPackagesTest {

  @Test
  void shouldMarkEveryPackageOfCollectivesAsInternal() throws Exception {
    Path sources = Path.of("src/main/java");

    assertThat(InternalPackages.packages(sources)).contains("dev.ddp4j.collectives.cuda");
    assertThat(InternalPackages.unmarked(sources, Path.of("target/classes"))).isEmpty();
  }
}
