package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subgroup's store view keeps the whole store contract over a view of a view, puts its keys under
 * its prefix in the parent's store, and leaves the parent's store open when closed.
 */
class PrefixStoreTest extends StoreContractTest {

  @TempDir Path dir;

  // The file store's clients under the views, which the views never close.
  private final List<Store> bases = new ArrayList<>();

  @Override
  Store newClient() {
    Store base = FileStore.open(dir.resolve("store"), Duration.ofSeconds(20));
    bases.add(base);
    return PrefixStore.of(PrefixStore.of(base, "sub/0/g/"), "sub/1/c3/");
  }

  @AfterEach
  void closeBases() {
    bases.forEach(Store::close);
  }

  @Test
  void shouldKeepKeysUnderTheJoinedPrefixAndLeaveTheParentOpen() {
    Store view = newClient();
    Store base = bases.get(0);
    view.set("k", "v".getBytes(UTF_8));
    view.append("k", "w".getBytes(UTF_8));
    assertThat(((PrefixStore) view).prefix()).isEqualTo("sub/0/g/sub/1/c3/");
    assertThat(base.get("sub/0/g/sub/1/c3/k", Duration.ofSeconds(1)))
        .isEqualTo("vw".getBytes(UTF_8));
    assertThat(base.check(List.of("k"))).isFalse();
    view.close();
    base.set("still", new byte[] {1});
    assertThat(view.get("k", Duration.ofSeconds(1))).isEqualTo("vw".getBytes(UTF_8));
  }
}
