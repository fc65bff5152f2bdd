package dev.ddp4j.runtime.checkpoint;

import dev.ddp4j.ProcessGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;

/**
 * Checkpoints of a data-parallel model: parameters, updater state and iteration/epoch counts
 * (DL4J's model zip). Rank 0 writes atomically (a temp file beside the target, then a rename), so a
 * crash never leaves half a checkpoint; every rank waits at a barrier until it is on disk. Every
 * rank loads the same file.
 */
public final class Checkpoints {

  private Checkpoints() {}

  /** Rank 0 writes {@code model} to {@code file}; all ranks return once it is complete. */
  public static void save(Model model, ProcessGroup group, Path file) {
    if (group.rank() == 0) {
      try {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".partial");
        try {
          ModelSerializer.writeModel(model, tmp.toFile(), true);
          Files.move(
              tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
          Files.deleteIfExists(tmp);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "rank 0 could not write the checkpoint " + file + ": " + e.getMessage(), e);
      }
    }
    group.barrier().await();
  }

  /** The MultiLayerNetwork in {@code file}, with its updater state. */
  public static MultiLayerNetwork loadMultiLayerNetwork(Path file) {
    try {
      return ModelSerializer.restoreMultiLayerNetwork(file.toFile(), true);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not read the checkpoint " + file + ": " + e.getMessage(), e);
    }
  }

  /** The ComputationGraph in {@code file}, with its updater state. */
  public static ComputationGraph loadComputationGraph(Path file) {
    try {
      return ModelSerializer.restoreComputationGraph(file.toFile(), true);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not read the checkpoint " + file + ": " + e.getMessage(), e);
    }
  }
}
