package dev.ddp4j.runtime.trace;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A Chrome-trace / Perfetto timeline of one rank (open it at ui.perfetto.dev or chrome://tracing):
 * complete events ({@code "ph":"X"}) on two tracks, {@link #COMPUTE} (forward, backward per layer,
 * optimizer step) and {@link #COMM} (each bucket's all-reduce, from launch to completion). Thread
 * safe: communication completes on the backend's thread. A disabled timeline records nothing and
 * costs a branch.
 */
public final class Timeline {

  public static final int COMPUTE = 0;
  public static final int COMM = 1;

  private record Event(String name, int track, long startNs, long durationNs) {}

  private final Path file;
  private final int rank;
  private final long originNs = System.nanoTime();
  private final List<Event> events = new ArrayList<>();

  private Timeline(Path file, int rank) {
    this.file = file;
    this.rank = rank;
  }

  /** A timeline that records nothing. */
  public static Timeline disabled() {
    return new Timeline(null, 0);
  }

  /**
   * A timeline written to {@code pattern} for {@code rank}: {@code {rank}} in the pattern is
   * replaced by the rank; otherwise {@code .rank<R>} is put before the extension ({@code
   * trace.json} becomes {@code trace.rank3.json}).
   */
  public static Timeline toFile(String pattern, int rank) {
    String name;
    if (pattern.contains("{rank}")) {
      name = pattern.replace("{rank}", Integer.toString(rank));
    } else {
      int dot = pattern.lastIndexOf('.');
      int slash = pattern.lastIndexOf('/');
      name =
          dot > slash
              ? pattern.substring(0, dot) + ".rank" + rank + pattern.substring(dot)
              : pattern + ".rank" + rank;
    }
    return new Timeline(Path.of(name), rank);
  }

  public boolean enabled() {
    return file != null;
  }

  /** The file this timeline is written to, or null when disabled. */
  public Path file() {
    return file;
  }

  /** Records an event that started at {@code startNs} ({@link System#nanoTime()}) and ends now. */
  public void record(String name, int track, long startNs) {
    if (file != null) {
      long now = System.nanoTime();
      synchronized (events) {
        events.add(new Event(name, track, startNs - originNs, now - startNs));
      }
    }
  }

  /** Writes every event so far (atomically: a temp file, then a rename). */
  public void write() throws IOException {
    if (file == null) {
      return;
    }
    List<Event> copy;
    synchronized (events) {
      copy = new ArrayList<>(events);
    }
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path tmp = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
    try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      w.write("{\"traceEvents\":[\n");
      w.write(meta(COMPUTE, "compute") + ",\n" + meta(COMM, "comm"));
      for (Event e : copy) {
        w.write(
            String.format(
                ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}",
                e.name().replace("\"", "'"),
                rank,
                e.track(),
                e.startNs() / 1e3,
                e.durationNs() / 1e3));
      }
      w.write("\n],\"displayTimeUnit\":\"ms\"}\n");
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private String meta(int track, String name) {
    return String.format(
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"rank %d %s\"}}",
        rank, track, rank, name);
  }
}
