package dev.ddp4j.runtime.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.runtime.trace.Timeline;
import dev.ddp4j.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bucket engine's protocol on two ranks (threads of this JVM, a real cpu group): buckets start
 * in bucket order as their first layer becomes ready, finishStep starts the rest and joins the
 * consumer once, awaitStep leaves the sum over ranks, a wait that times out can be repeated, and
 * misuse is refused. The source is a plain float array (no ND4J), as the engine must run without
 * it.
 */
class GradientReducerTest {

  // Four layers of 1,000 floats: bucket 0 = layer 3 (4 KB cap), bucket 1 = layers 1-2, bucket 2 =
  // layer 0 (8 KB cap).
  private static final int LAYER = 1000;

  private static BucketPlan plan() {
    List<ParamRange> ranges = new ArrayList<>();
    for (int l = 0; l < 4; l++) {
      ranges.add(new ParamRange(l, "layer " + l, (long) l * LAYER, LAYER));
    }
    return BucketPlan.of(ranges, 4, 4 * LAYER, 8 * LAYER);
  }

  private static float[] gradient(int rank) {
    float[] g = new float[4 * LAYER];
    for (int i = 0; i < g.length; i++) {
      g[i] = (rank + 1) * (i % 7);
    }
    return g;
  }

  private interface RankBody<T> {
    T run(ProcessGroup group, int rank) throws Exception;
  }

  /** Runs {@code body} on ranks 0 and 1 of one real cpu group; returns each rank's result. */
  private static <T> List<T> onTwoRanks(RankBody<T> body) throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        int rank = r;
        futures.add(
            pool.submit(
                () -> {
                  WorkerEnvironment w =
                      new WorkerEnvironment(rank, 2, rank, 2, 0, 0, InitMethod.tcp("127.0.0.1", 1));
                  try (ProcessGroup g =
                      TestGroups.create(w, store, Duration.ofSeconds(60), Map.of())) {
                    return body.run(g, rank);
                  }
                }));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void shouldStartEachBucketOnceItsFirstLayerIsReadyAndLeaveTheSumOverRanks() throws Exception {
    List<Object[]> runs =
        onTwoRanks(
            (g, rank) -> {
              float[] grad = gradient(rank);
              FloatArrayGradients source = new FloatArrayGradients(g, plan(), grad);
              GradientReducer engine = new GradientReducer(source, Timeline.disabled());
              List<List<Integer>> afterLayer = new ArrayList<>();
              engine.beginStep();
              for (int layer = 3; layer >= 0; layer--) {
                engine.layerReady(layer);
                afterLayer.add(source.started());
              }
              int joinsBeforeFinish = source.joins();
              engine.finishStep();
              engine.awaitStep(Duration.ofSeconds(30));
              engine.close();
              return new Object[] {afterLayer, joinsBeforeFinish, source.joins(), grad, source};
            });
    for (Object[] run : runs) {
      assertThat(run[0])
          .as("buckets started after layers 3, 2, 1, 0")
          .isEqualTo(List.of(List.of(0), List.of(0), List.of(0, 1), List.of(0, 1, 2)));
      assertThat(run[1]).as("joins before finishStep").isEqualTo(0);
      assertThat(run[2]).as("joins after finishStep").isEqualTo(1);
      float[] grad = (float[]) run[3];
      for (int i = 0; i < grad.length; i++) {
        assertThat(grad[i]).as("element %d", i).isEqualTo(3f * (i % 7));
      }
      assertThat(((FloatArrayGradients) run[4]).closed()).as("close closes the source").isTrue();
    }
  }

  @Test
  void shouldStartTheBucketsBackwardNeverReportedWhenTheStepFinishes() throws Exception {
    List<List<Integer>> started =
        onTwoRanks(
            (g, rank) -> {
              FloatArrayGradients source = new FloatArrayGradients(g, plan(), gradient(rank));
              GradientReducer engine = new GradientReducer(source, Timeline.disabled());
              engine.beginStep();
              engine.layerReady(3);
              engine.finishStep();
              engine.awaitStep(Duration.ofSeconds(30));
              assertThat(engine.active()).isFalse();
              assertThat(engine.commNanos()).as("host-timed buckets").isPositive();
              return source.started();
            });
    assertThat(started).containsOnly(List.of(0, 1, 2));
  }

  @Test
  void shouldTimeOutWhileAPeerHasNotSentAndSucceedWhenWaitingAgain() throws Exception {
    CountDownLatch rank0TimedOut = new CountDownLatch(1);
    List<String> outcomes =
        onTwoRanks(
            (g, rank) -> {
              float[] grad = gradient(rank);
              GradientReducer engine =
                  new GradientReducer(
                      new FloatArrayGradients(g, plan(), grad), Timeline.disabled());
              if (rank == 1 && !rank0TimedOut.await(60, TimeUnit.SECONDS)) {
                return "rank 0 never timed out";
              }
              engine.beginStep();
              engine.finishStep();
              String first = "";
              if (rank == 0) {
                try {
                  engine.awaitStep(Duration.ofMillis(300));
                  first = "no timeout";
                } catch (DdpTimeoutException e) {
                  first = "timed out; ";
                } finally {
                  rank0TimedOut.countDown();
                }
              }
              engine.awaitStep(Duration.ofSeconds(30));
              return first + "sum " + (grad[5] == 15f && grad[3999] == 3f * (3999 % 7));
            });
    assertThat(outcomes).containsExactly("timed out; sum true", "sum true");
  }

  @Test
  void shouldRefuseToDisarmAStepThatStartedBuckets() throws Exception {
    List<String> outcomes =
        onTwoRanks(
            (g, rank) -> {
              FloatArrayGradients source = new FloatArrayGradients(g, plan(), gradient(rank));
              GradientReducer engine = new GradientReducer(source, Timeline.disabled());
              engine.beginStep();
              engine.disarm(); // a step that saw no backward
              engine.layerReady(0); // disarmed: starts nothing
              assertThat(source.started()).isEmpty();
              assertThatThrownBy(engine::finishStep).hasMessage("finishStep without beginStep");
              engine.beginStep();
              engine.layerReady(3);
              assertThatThrownBy(() -> engine.awaitStep(Duration.ofSeconds(1)))
                  .hasMessageContaining("awaitStep before finishStep");
              String refused = "";
              try {
                engine.disarm();
              } catch (IllegalStateException e) {
                refused = e.getMessage();
              }
              engine.finishStep(); // every rank issues the same collectives
              engine.awaitStep(Duration.ofSeconds(30));
              return refused;
            });
    assertThat(outcomes)
        .allSatisfy(
            m -> assertThat(m).startsWith("1 buckets were launched in a step that never reached"));
  }
}
