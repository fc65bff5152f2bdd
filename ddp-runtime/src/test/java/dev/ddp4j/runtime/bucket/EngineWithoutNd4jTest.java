package dev.ddp4j.runtime.bucket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import dev.ddp4j.runtime.trace.Timeline;
import dev.ddp4j.testing.InMemoryStore;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The GPU bundle runs the device engine with ddp-runtime's jar and no ND4J or DL4J: a child JVM
 * with this test's class path minus every ND4J, DL4J and JavaCPP jar links the engine and the
 * device source and runs a step through the engine on a real one-rank cpu group.
 */
class EngineWithoutNd4jTest {

  /** The child: fails (exit 1) on a NoClassDefFoundError, as the bundle would. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      try {
        Class.forName("org.nd4j.linalg.factory.Nd4j");
        System.out.println("ND4J is on the class path");
        System.exit(2);
      } catch (ClassNotFoundException expected) {
        System.out.println("no ND4J");
      }
      // Linking verifies every method, so a type the verifier needs from ND4J would fail here.
      Class.forName("dev.ddp4j.runtime.cuda.DeviceGradients", true, Child.class.getClassLoader());
      WorkerEnvironment w = new WorkerEnvironment(0, 1, 0, 1, 0, 0, InitMethod.tcp("127.0.0.1", 1));
      try (ProcessGroup g =
          TestGroups.create(w, new InMemoryStore(), Duration.ofSeconds(30), Map.of())) {
        List<ParamRange> ranges =
            List.of(new ParamRange(0, "a", 0, 10), new ParamRange(1, "b", 10, 5));
        float[] grad = new float[15];
        java.util.Arrays.fill(grad, 2f);
        FloatArrayGradients source =
            new FloatArrayGradients(g, BucketPlan.of(ranges, 4, 1, 1), grad);
        try (GradientReducer engine = new GradientReducer(source, Timeline.disabled())) {
          engine.beginStep();
          engine.layerReady(1);
          engine.layerReady(0);
          engine.finishStep();
          engine.awaitStep(Duration.ofSeconds(10));
        }
        System.out.println("engine ran: buckets " + source.started() + ", element 0 = " + grad[0]);
      }
    }
  }

  @Test
  void shouldRunTheEngineAndLinkTheDeviceSourceWithoutNd4jOnTheClassPath() throws Exception {
    List<String> kept = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String p = e.replace('\\', '/');
      if (!p.contains("/org/nd4j/")
          && !p.contains("/org/deeplearning4j/")
          && !p.contains("/org/bytedeco/")
          && !p.contains("/org/datavec/")) {
        kept.add(e);
      }
    }
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                String.join(File.pathSeparator, kept),
                Child.class.getName())
            .redirectErrorStream(true)
            .start();
    String out;
    try {
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child finished").isTrue();
      out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      child.destroyForcibly();
    }
    assertThat(out).contains("no ND4J").contains("engine ran: buckets [0, 1], element 0 = 2.0");
    assertThat(child.exitValue()).as(out).isZero();
  }
}
