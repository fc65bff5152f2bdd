package dev.ddp4j.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.CpuProcessGroup;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.DdpStats;
import dev.ddp4j.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Two ranks (threads of this JVM, a real cpu group over shared memory) train a model whose one
 * bucket (264 KiB) is past DDP4J_SHARED_MIN_BYTES: with shared gradients (the default) the model's
 * gradient buffer lies in the group's shared host memory while wrapped, the bucket all-reduces read
 * peers' gradients in place, Adam's state survives the move, and the parameters end bit for bit
 * where the run with the gradients in ND4J's memory ends; after close the gradients are back in
 * ND4J's memory and the model trains on after the group is gone.
 */
class SharedGradientsTest {

  private static final int STEPS = 4;

  private static MultiLayerNetwork net() {
    MultiLayerNetwork net =
        new MultiLayerNetwork(
            new NeuralNetConfiguration.Builder()
                .seed(11)
                .dataType(DataType.FLOAT)
                .updater(new Adam(1e-3))
                .list()
                .layer(
                    new DenseLayer.Builder().nIn(256).nOut(256).activation(Activation.TANH).build())
                .layer(
                    new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .nIn(256)
                        .nOut(4)
                        .activation(Activation.IDENTITY)
                        .build())
                .build());
    net.init();
    return net;
  }

  /** Rank {@code rank}'s batch of step {@code step}, from java.util.Random (ND4J's is global). */
  private static DataSet data(int rank, int step) {
    java.util.Random random = new java.util.Random(1000L * rank + step);
    float[] x = new float[16 * 256];
    float[] y = new float[16 * 4];
    for (int i = 0; i < x.length; i++) {
      x[i] = random.nextFloat();
    }
    for (int i = 0; i < y.length; i++) {
      y[i] = random.nextFloat();
    }
    return new DataSet(Nd4j.create(x, new long[] {16, 256}), Nd4j.create(y, new long[] {16, 4}));
  }

  /** What one rank saw: its final parameters and how many all-reduces read peers in place. */
  private record Run(float[] params, long sharedAllReduces, boolean gradientsMovedBack) {}

  private static Run rank(InMemoryStore store, MultiLayerNetwork net, int rank, boolean shared)
      throws Exception {
    net.initGradientsView();
    long nd4jAddress = net.getGradientsViewArray().data().address();
    long sharedCount;
    long wrappedAddress;
    WorkerEnvironment w =
        new WorkerEnvironment(rank, 2, rank, 2, 0, 0, InitMethod.tcp("127.0.0.1", 1));
    try (ProcessGroup group = TestGroups.create(w, store, Duration.ofSeconds(60), Map.of())) {
      try (DdpModel<MultiLayerNetwork> ddp =
          DdpModel.wrap(
              net,
              group,
              DdpOptions.builder()
                  .sharedGradients(shared)
                  .firstBucketBytes(4096)
                  .bucketCapBytes(4096)
                  .build())) {
        assertThat(ddp.model()).isSameAs(net);
        wrappedAddress = net.getGradientsViewArray().data().address();
        DdpStats before = ddp.stats();
        for (int step = 0; step < STEPS; step++) {
          ddp.fit(data(rank, step));
        }
        DdpStats after = ddp.stats();
        assertThat(before.steps()).isZero();
        assertThat(before.exposedMsPerStep()).isZero();
        assertThat(after.steps()).isEqualTo(STEPS);
        assertThat(after.parameters()).isEqualTo(net.numParams());
        assertThat(after.buckets()).isEqualTo(ddp.bucketPlan().buckets().size()).isGreaterThan(1);
        assertThat(after.commNanos()).as("host buckets are timed").isPositive();
        assertThat(before.steps()).as("a snapshot").isZero();
      }
      assertThat(wrappedAddress != nd4jAddress)
          .as("gradients moved while wrapped (shared gradients %s)", shared)
          .isEqualTo(shared);
      sharedCount = ((CpuProcessGroup) group).sharedMemoryAllReduces();
    }
    boolean movedBack = net.getGradientsViewArray().data().address() != wrappedAddress;
    float[] params = net.params().dup().data().asFloat();
    net.fit(data(rank, STEPS)); // the group's memory is gone: this must not touch it
    for (int i = 0; i < 3; i++) { // ND4J's deallocators must leave the unmapped block alone
      System.gc();
      Thread.sleep(100);
    }
    return new Run(params, sharedCount, movedBack);
  }

  private static List<Run> train(boolean shared) throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Run>> runs = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        int rank = r;
        MultiLayerNetwork net = net(); // here: DL4J seeds ND4J's one random generator in init
        runs.add(pool.submit(() -> rank(store, net, rank, shared)));
      }
      List<Run> out = new ArrayList<>();
      for (Future<Run> f : runs) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void shouldReadPeersGradientsInPlaceAndTrainAsWithNd4jMemory() throws Exception {
    List<Run> shared = train(true);
    List<Run> plain = train(false);
    for (int r = 0; r < 2; r++) {
      assertThat(shared.get(r).sharedAllReduces())
          .as("bucket all-reduces through shared memory on rank %d", r)
          .isEqualTo(STEPS);
      assertThat(plain.get(r).sharedAllReduces()).isZero();
      assertThat(shared.get(r).gradientsMovedBack()).as("gradients back in ND4J's memory").isTrue();
      assertThat(shared.get(r).params())
          .as("rank %d's parameters, shared gradients against ND4J's memory", r)
          .isEqualTo(plain.get(r).params());
    }
    assertThat(shared.get(1).params()).isEqualTo(shared.get(0).params());
    assertThat(shared.get(0).params()).isNotEqualTo(net().params().data().asFloat());
  }
}
