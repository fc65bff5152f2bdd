package dev.ddp4j.collectives.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The server's waiters against deletes, step by step on one {@link StoreState} (the order of
 * operations is exact here, which racing clients cannot guarantee).
 */
class StoreStateTest {

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void aWaiterStrandedByADeleteShouldBeWokenWhenTheDeletedKeyIsSetAgain() {
    StoreState state = new StoreState();
    List<StoreState.Waiter> woken = new ArrayList<>();
    state.set("a", b("1"));
    StoreState.Waiter w = state.newWaiter(List.of("a", "b"), woken::add);
    assertThat(state.valuesOrAwait(w)).isNull();
    state.delete("a");
    StoreState.fire(state.setAndCollect("b", b("2")));
    assertThat(woken).isEmpty();

    StoreState.fire(state.setAndCollect("a", b("3")));
    assertThat(woken).containsExactly(w);
    assertThat(w.values).containsExactly(b("3"), b("2"));
  }

  @Test
  void aWokenGetShouldAnswerTheValueItWokeOnEvenIfTheKeyIsDeletedRightAfter() {
    StoreState state = new StoreState();
    List<StoreState.Waiter> woken = new ArrayList<>();
    StoreState.Waiter w = state.newWaiter(List.of("k"), woken::add);
    assertThat(state.valuesOrAwait(w)).isNull();
    List<StoreState.Waiter> ready = state.setAndCollect("k", b("v"));
    state.delete("k");
    StoreState.fire(ready);
    assertThat(woken).containsExactly(w);
    assertThat(w.values).containsExactly(b("v"));
  }

  @Test
  void aDeletedKeyShouldBeWaitedForAndTheWaiterNamesIt() {
    StoreState state = new StoreState();
    state.set("k", b("v"));
    state.delete("k");
    StoreState.Waiter w = state.newWaiter(List.of("k"), x -> {});
    assertThat(state.valuesOrAwait(w)).isNull();
    assertThat(w.cancel()).containsExactly("k");
    assertThat(w.cancel()).as("completes at most once").isNull();
  }
}
