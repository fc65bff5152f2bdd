package dev.ddp4j.runtime.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ddp4j.ProcessGroup;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints against bad luck: a save killed midway, and files that are empty or cut short. */
class CheckpointsTest {

  private static final int WIDTH = 1500; // 2.25 M weights + Adam state: a save takes a while

  @Test
  void aSaveKilledMidwayShouldLeaveTheLastCheckpointWholeAndTheNextSaveCleanUp(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("latest.zip");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                CheckpointSaver.class.getName(),
                file.toString(),
                Integer.toString(WIDTH))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8));
      assertThat(out.readLine()).isEqualTo("saved 1");
      // The next save is under way once its partial file has bytes: kill -9 then.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> partials(dir).stream().anyMatch(f -> f.toFile().length() > 0));
    } finally {
      p.destroyForcibly(); // SIGKILL: no finally block, no shutdown hook runs in the saver
      p.waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(partials(dir)).as("what the killed save left").isNotEmpty();
    MultiLayerNetwork last = Checkpoints.loadMultiLayerNetwork(file);
    assertThat(last.numParams()).isEqualTo(CheckpointSaver.model(WIDTH).numParams());

    try (ProcessGroup group = CheckpointSaver.oneRankGroup(dir)) {
      Checkpoints.save(CheckpointSaver.model(WIDTH), group, file);
    }
    assertThat(partials(dir)).as("partial files after the next save").isEmpty();
    assertThat(Checkpoints.loadMultiLayerNetwork(file).numParams()).isEqualTo(last.numParams());
  }

  @Test
  void anEmptyCheckpointShouldSaySoInsteadOfAStreamError(@TempDir Path dir) throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.zip"));
    assertThatThrownBy(() -> Checkpoints.loadMultiLayerNetwork(empty))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("the checkpoint " + empty + " is an empty file (0 bytes)")
        .hasMessageContaining("use an earlier checkpoint");
  }

  @Test
  void aTruncatedCheckpointShouldSaySo(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("whole.zip");
    try (ProcessGroup group = CheckpointSaver.oneRankGroup(dir)) {
      Checkpoints.save(CheckpointSaver.model(64), group, file);
    }
    byte[] whole = Files.readAllBytes(file);
    Path cut = dir.resolve("cut.zip");
    Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
    assertThatThrownBy(() -> Checkpoints.loadComputationGraph(cut))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("the checkpoint " + cut + " (" + whole.length / 2 + " bytes)")
        .hasMessageContaining("is truncated or not a model checkpoint");
  }

  private static List<Path> partials(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".partial"))
          .collect(Collectors.toList());
    }
  }
}
