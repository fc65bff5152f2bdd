package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanDigest;
import dev.ddp4j.collectives.plan.Prediction;
import dev.ddp4j.testing.InMemoryStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Planning a cpu group through a store: what every rank agrees on, and when they disagree. */
class CpuPlanningTest {

  @TempDir Path sys; // an empty sysfs: one NUMA node, no NICs

  @Test
  void shouldGiveEveryRankTheSameRingWithRanksOfOneHostAdjacent() throws Exception {
    List<String> nodes = List.of("a", "b", "a", "b", "c", "a");
    List<Object> plans = planOnThreads(nodes, r -> Map.of(), 1);
    Plan first = (Plan) plans.get(0);
    for (Object p : plans) {
      assertThat(PlanDigest.sha256((Plan) p)).isEqualTo(PlanDigest.sha256(first));
    }
    int[] ring = first.rings().get(0);
    assertThat(ring).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
    int hostChanges = 0;
    for (int i = 0; i < ring.length; i++) {
      String here = nodes.get(ring[i]);
      String next = nodes.get(ring[(i + 1) % ring.length]);
      hostChanges += here.equals(next) ? 0 : 1;
    }
    assertThat(hostChanges).as(java.util.Arrays.toString(ring)).isEqualTo(3);
  }

  @Test
  void shouldFailOnBothSidesWhenOneRankForcesAnotherAlgorithm() throws Exception {
    List<Object> outcomes =
        planOnThreads(
            List.of("a", "a", "a"), r -> r == 2 ? Map.of("DDP4J_ALGO", "tree") : Map.of(), 1);
    assertThat(outcomes.get(1)).isInstanceOf(Plan.class);
    assertThat(outcomes.get(0))
        .isInstanceOf(CollectiveMismatchException.class)
        .extracting(o -> ((Exception) o).getMessage())
        .asString()
        .contains("rank 0 planned", "but rank 2 planned", "DDP4J_ALGO");
    assertThat(((Exception) outcomes.get(2)).getMessage())
        .contains("rank 2 planned", "but rank 0 planned");
  }

  @Test
  void shouldRunTheForcedAlgorithmAtEverySize() throws Exception {
    Plan plan =
        (Plan)
            planOnThreads(List.of("a", "a", "a", "a"), r -> Map.of("DDP4J_ALGO", "tree"), 1).get(3);
    for (Prediction p : plan.table()) {
      assertThat(p.chosen()).isEqualTo(Algorithm.TREE);
    }
  }

  @Test
  void shouldNotPickOneShotOnItsOwnForThreeRanksWhoseSumsCouldDifferInTheLastBit()
      throws Exception {
    Plan three = (Plan) planOnThreads(List.of("a", "a", "a"), r -> Map.of(), 1).get(0);
    assertThat(three.table()).extracting(Prediction::chosen).doesNotContain(Algorithm.ONESHOT);
    Plan forced =
        (Plan)
            planOnThreads(List.of("a", "a", "a"), r -> Map.of("DDP4J_ALGO", "oneshot"), 1).get(0);
    assertThat(forced.table()).extracting(Prediction::chosen).containsOnly(Algorithm.ONESHOT);
  }

  @Test
  void shouldUseNoMoreRingsThanTheTransportHasChannels() throws Exception {
    Plan plan = (Plan) planOnThreads(List.of("a", "b", "a", "b"), r -> Map.of(), 2).get(0);
    assertThat(plan.rings()).hasSizeBetween(1, 2);
  }

  /** Plans on one thread per rank over one in-memory store; each entry a Plan or the exception. */
  private List<Object> planOnThreads(
      List<String> nodes, IntFunction<Map<String, String>> env, int channels) throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(nodes.size());
    try {
      List<Future<Object>> futures = new ArrayList<>();
      for (int r = 0; r < nodes.size(); r++) {
        int rank = r;
        futures.add(
            pool.submit(
                () -> {
                  try {
                    DebugLog log = new DebugLog(DebugLog.Level.WARN, rank);
                    return CpuPlanning.agree(
                        store,
                        "t/",
                        rank,
                        nodes,
                        CpuPlanning.options(
                            CpuGroupOptions.from(dev.ddp4j.spi.Settings.of(env.apply(rank)))
                                .forced(),
                            channels,
                            log),
                        sys,
                        Duration.ofSeconds(20),
                        log);
                  } catch (RuntimeException e) {
                    return e;
                  }
                }));
      }
      List<Object> out = new ArrayList<>();
      for (Future<Object> f : futures) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
