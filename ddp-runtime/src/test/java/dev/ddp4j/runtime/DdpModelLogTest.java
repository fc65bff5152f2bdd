package dev.ddp4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.testing.InMemoryStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * DdpModel logs through the project's facade, gated by DDP4J_DEBUG as documented: at INFO rank 0
 * names its buckets and comm hook once at wrap; at the default WARN it says nothing. A child JVM
 * per level (the level is read from the environment), slf4j-nop on the path, so lines reach stderr.
 */
class DdpModelLogTest {

  /** The child: wraps a two-layer network on a one-rank cpu group. */
  public static final class Child {
    public static void main(String[] args) {
      MultiLayerNetwork net =
          new MultiLayerNetwork(
              new NeuralNetConfiguration.Builder()
                  .seed(1)
                  .list()
                  .layer(
                      new DenseLayer.Builder().nIn(8).nOut(4).activation(Activation.TANH).build())
                  .layer(
                      new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                          .nIn(4)
                          .nOut(2)
                          .activation(Activation.IDENTITY)
                          .build())
                  .build());
      net.init();
      WorkerEnvironment w = new WorkerEnvironment(0, 1, 0, 1, 0, 0, InitMethod.tcp("127.0.0.1", 1));
      try (ProcessGroup g =
              TestGroups.create(w, new InMemoryStore(), Duration.ofSeconds(30), Map.of());
          DdpModel ddp = DdpModel.wrap(net, g, DdpOptions.defaults())) {
        System.out.println("wrapped " + ddp.bucketPlan().totalLength() + " parameters");
      }
    }
  }

  private static String run(String level) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Child.class.getName())
            .redirectErrorStream(true);
    pb.environment().remove("NCCL_DEBUG");
    if (level == null) {
      pb.environment().remove("DDP4J_DEBUG");
    } else {
      pb.environment().put("DDP4J_DEBUG", level);
    }
    Process p = pb.start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(out).isZero();
      return out;
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void shouldNameItsBucketsAtInfoAndStayQuietAtTheDefaultLevel() throws Exception {
    String info = run("info");
    assertThat(info)
        .contains("wrapped 46 parameters")
        .containsOnlyOnce(
            " [0] DDP4J INFO DdpModel: 1 ranks, 1 buckets: #0 [0,46); comm hook allreduce on host"
                + " memory");
    String quiet = run(null);
    assertThat(quiet).contains("wrapped 46 parameters").doesNotContain("DDP4J INFO");
  }
}
