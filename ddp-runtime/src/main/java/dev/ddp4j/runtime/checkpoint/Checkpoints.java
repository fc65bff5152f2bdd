package dev.ddp4j.runtime.checkpoint;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.zero.ZeroRedundancy;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;

/**
 * Checkpoints of a data-parallel model: parameters, updater state and iteration/epoch counts
 * (DL4J's model zip). Rank 0 writes a temp file beside the target ({@code NAME.RANDOM.partial}),
 * forces it to disk, renames it over the target and forces the folder, so that neither a crash nor
 * a power loss leaves half a checkpoint under the target's name; partial files a killed save left
 * are removed by the next save. Every rank waits at a barrier until the file is on disk, and every
 * rank loads the same file.
 */
public final class Checkpoints {

  private Checkpoints() {}

  /**
   * Rank 0 writes {@code model} to {@code file}; all ranks return once it is complete. A model
   * whose updater state ZeRO-1 shards over the ranks is gathered first (every rank calls save), so
   * the file holds the full state, as without ZeRO.
   */
  public static void save(Model model, ProcessGroup group, Path file) {
    try (ZeroRedundancy.FullState scope = ZeroRedundancy.gatherForCheckpoint(model)) {
      write(model, group, file);
    }
    group.barrier().await();
  }

  private static void write(Model model, ProcessGroup group, Path file) {
    if (group.rank() == 0) {
      try {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        removeStalePartials(dir, file.getFileName().toString());
        Path tmp = Files.createTempFile(dir, file.getFileName() + ".", ".partial");
        try {
          try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
              OutputStream out = Channels.newOutputStream(ch)) {
            ModelSerializer.writeModel(model, out, true);
            out.flush();
            ch.force(true);
          }
          Files.move(
              tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
          forceFolder(dir);
        } finally {
          Files.deleteIfExists(tmp);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "rank 0 could not write the checkpoint " + file + ": " + e.getMessage(), e);
      }
    }
  }

  /** The MultiLayerNetwork in {@code file}, with its updater state. */
  public static MultiLayerNetwork loadMultiLayerNetwork(Path file) {
    check(file);
    try {
      return ModelSerializer.restoreMultiLayerNetwork(file.toFile(), true);
    } catch (IOException | RuntimeException e) {
      throw unreadable(file, e);
    }
  }

  /** The ComputationGraph in {@code file}, with its updater state. */
  public static ComputationGraph loadComputationGraph(Path file) {
    check(file);
    try {
      return ModelSerializer.restoreComputationGraph(file.toFile(), true);
    } catch (IOException | RuntimeException e) {
      throw unreadable(file, e);
    }
  }

  /**
   * Removes {@code NAME.*.partial} files beside the target: what a save killed midway left (a
   * concurrent save of the same file from another job is not supported anyway).
   */
  private static void removeStalePartials(Path dir, String name) throws IOException {
    Pattern partial = Pattern.compile(Pattern.quote(name) + "\\.\\d+\\.partial");
    try (var files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (partial.matcher(p.getFileName().toString()).matches()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Makes the rename durable: the new directory entry is on disk once this returns. */
  private static void forceFolder(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems cannot open or sync a folder; the rename itself stays atomic.
    }
  }

  /** Fails with a clear message for what ModelSerializer would report as a stream error. */
  private static void check(Path file) {
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not read the checkpoint " + file + ": " + e + " (expected: a file from save)", e);
    }
    if (size == 0) {
      throw new UncheckedIOException(
          new IOException(
              "the checkpoint "
                  + file
                  + " is an empty file (0 bytes): not written by Checkpoints.save, or its disk"
                  + " filled; use an earlier checkpoint"));
    }
    try (ZipFile zip = new ZipFile(file.toFile())) {
      if (zip.getEntry(ModelSerializer.CONFIGURATION_JSON) == null) {
        throw new IOException("it has no " + ModelSerializer.CONFIGURATION_JSON + " entry");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "the checkpoint "
              + file
              + " ("
              + size
              + " bytes) is truncated or not a model checkpoint ("
              + e.getMessage()
              + "); use an earlier checkpoint",
          e);
    }
  }

  private static UncheckedIOException unreadable(Path file, Exception e) {
    return new UncheckedIOException(
        "could not read the checkpoint " + file + ": " + e.getMessage(),
        e instanceof IOException io ? io : new IOException(e));
  }
}
