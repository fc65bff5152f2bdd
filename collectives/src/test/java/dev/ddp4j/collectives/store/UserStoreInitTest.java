package dev.ddp4j.collectives.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.Ddp;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.InitMethod;
import dev.ddp4j.InitOptions;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.spi.Settings;
import dev.ddp4j.testing.InMemoryStore;
import dev.ddp4j.testing.RankProcesses;
import dev.ddp4j.testing.RankProcesses.Outcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A program that makes its own store and hands it to {@code Ddp.init} (PyTorch's {@code
 * init_process_group(store=...)}): real rank processes, each with its own connection to one TCP
 * store, join the cpu backend through it, and the connection outlives the group.
 */
class UserStoreInitTest {

  @Test
  void shouldResolveTheWorkerOfAProgramsStore() {
    Store mine = new InMemoryStore();
    InitOptions o = InitOptions.builder().store(mine).rank(1).worldSize(2).build(Settings.empty());
    assertThat(o.store()).containsSame(mine);
    assertThat(o.toBuilder().build(Settings.empty()).store()).containsSame(mine);
    WorkerEnvironment w = WorkerEnvironment.resolve(o, Settings.empty());
    assertThat(w.initMethod()).isEqualTo(InitMethod.userStore());
    assertThat(w.rank()).isEqualTo(1);
    assertThatThrownBy(
            () ->
                InitOptions.builder()
                    .store(mine)
                    .initMethod("tcp://h:7")
                    .rank(0)
                    .worldSize(1)
                    .build(Settings.empty()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "both a store and init method tcp://h:7 were given (expected: one of them; the store"
                + " replaces the init method)");
  }

  @Test
  void shouldJoinThroughTheProgramsOwnStoreAndLeaveItOpen() throws Exception {
    List<Outcome> outcomes;
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, "user-secret")) {
      outcomes =
          RankProcesses.runMain(
              3,
              r -> List.of(),
              Map.of(),
              OwnStoreRank.class,
              120,
              List.of(Integer.toString(server.port()), "user-secret"));
    }
    String all = RankProcesses.describe(outcomes);
    for (Outcome o : outcomes) {
      assertThat(o.exitStatus()).as(all).isZero();
      assertThat(o.output()).as(all).contains("rank " + o.rank() + " passed: sum 6.0");
    }
  }

  /**
   * A rank that connects to the test's TCP store itself: {@code <unused dir> <rank> <ranks> <port>
   * <secret>}.
   */
  public static final class OwnStoreRank {
    public static void main(String[] args) {
      int rank = Integer.parseInt(args[1]);
      int ranks = Integer.parseInt(args[2]);
      int status = 0;
      try (Store store =
          TcpStoreClient.connect(
              "127.0.0.1", Integer.parseInt(args[3]), args[4], Duration.ofSeconds(60))) {
        InitOptions options =
            InitOptions.builder()
                .store(store)
                .rank(rank)
                .worldSize(ranks)
                .backend("cpu")
                .timeout(Duration.ofSeconds(60))
                .build(Settings.empty());
        float[] value = {rank + 1};
        try (ProcessGroup pg = Ddp.init(options)) {
          pg.allReduce(HostBuffer.of(value), ReduceOp.SUM).await();
        }
        // The group is closed; the program's store (a TCP connection) is not.
        store.set("after-" + rank, "ok".getBytes(StandardCharsets.UTF_8));
        for (int r = 0; r < ranks; r++) {
          store.get("after-" + r, Duration.ofSeconds(60));
        }
        System.out.println("rank " + rank + " passed: sum " + value[0]);
      } catch (Throwable t) {
        t.printStackTrace();
        status = 1;
      }
      System.out.flush();
      Runtime.getRuntime().halt(status);
    }
  }
}
