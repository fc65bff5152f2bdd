package dev.ddp4j.runtime.cuda;

import dev.ddp4j.collectives.gpu.Cu;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * A timeline of GPU work measured on the GPU: each span is a pair of timing events recorded on a
 * stream, so it shows when the work ran, not when the host queued it. Spans are relative to an
 * origin event ({@link #start}); after the traced work has finished, {@link #spans} reads them and
 * {@link #write} writes a Chrome-trace / Perfetto file like {@link
 * dev.ddp4j.runtime.trace.Timeline}'s, with {@link #COMPUTE} and {@link #COMM} tracks. A disabled
 * trace records nothing. Not thread safe.
 */
public final class DeviceTrace {

  public static final int COMPUTE = 0;
  public static final int COMM = 1;

  /** One measured span, in microseconds from the origin. */
  public record Span(String name, int track, double startUs, double endUs) {}

  private record Open(String name, int track, CUevent start, CUevent end) {}

  private final boolean enabled;
  private final List<Open> open = new ArrayList<>();
  private CUevent origin;

  private DeviceTrace(boolean enabled) {
    this.enabled = enabled;
  }

  public static DeviceTrace disabled() {
    return new DeviceTrace(false);
  }

  /** A trace that records; needs the context current. */
  public static DeviceTrace enabled() {
    return new DeviceTrace(true);
  }

  public boolean isEnabled() {
    return enabled;
  }

  /** Drops earlier spans and records the origin on {@code stream}. */
  public void start(CUstream stream) {
    if (!enabled) {
      return;
    }
    reset();
    origin = event();
    Cu.check(JCudaDriver.cuEventRecord(origin, stream), "cuEventRecord");
  }

  /** Records the start of span {@code name} on {@code stream}; returns its id for {@link #end}. */
  public int begin(String name, int track, CUstream stream) {
    if (!enabled || origin == null) {
      return -1;
    }
    Open o = new Open(name, track, event(), event());
    Cu.check(JCudaDriver.cuEventRecord(o.start(), stream), "cuEventRecord");
    open.add(o);
    return open.size() - 1;
  }

  /** Records the end of span {@code id} on {@code stream}. */
  public void end(int id, CUstream stream) {
    if (id >= 0) {
      Cu.check(JCudaDriver.cuEventRecord(open.get(id).end(), stream), "cuEventRecord");
    }
  }

  /** The span of bucket {@code bucket}'s all-reduce starts on the communication stream. */
  int beginBucket(int bucket, CUstream stream) {
    return begin("allreduce bucket " + bucket, COMM, stream);
  }

  /** The spans recorded since {@link #start}; waits for their events. */
  public List<Span> spans() {
    List<Span> out = new ArrayList<>();
    float[] ms = new float[1];
    for (Open o : open) {
      Cu.check(JCudaDriver.cuEventSynchronize(o.end()), "cuEventSynchronize");
      Cu.check(JCudaDriver.cuEventElapsedTime(ms, origin, o.start()), "cuEventElapsedTime");
      double s = ms[0] * 1e3;
      Cu.check(JCudaDriver.cuEventElapsedTime(ms, origin, o.end()), "cuEventElapsedTime");
      out.add(new Span(o.name(), o.track(), s, ms[0] * 1e3));
    }
    return out;
  }

  /** Writes {@code spans} of {@code rank} to {@code file} as a Chrome trace. */
  public static void write(Path file, int rank, List<Span> spans) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write("{\"traceEvents\":[\n");
      w.write(meta(rank, COMPUTE, "compute stream") + ",\n" + meta(rank, COMM, "comm stream"));
      for (Span s : spans) {
        w.write(
            String.format(
                java.util.Locale.ROOT,
                ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}",
                s.name().replace("\"", "'"),
                rank,
                s.track(),
                s.startUs(),
                s.endUs() - s.startUs()));
      }
      w.write("\n],\"displayTimeUnit\":\"ms\"}\n");
    }
  }

  private static String meta(int rank, int track, String name) {
    return String.format(
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"rank %d %s (GPU time)\"}}",
        rank, track, rank, name);
  }

  /** Destroys the events of the spans so far. */
  public void reset() {
    for (Open o : open) {
      JCudaDriver.cuEventDestroy(o.start());
      JCudaDriver.cuEventDestroy(o.end());
    }
    open.clear();
    if (origin != null) {
      JCudaDriver.cuEventDestroy(origin);
      origin = null;
    }
  }

  private static CUevent event() {
    CUevent e = new CUevent();
    Cu.check(JCudaDriver.cuEventCreate(e, 0), "cuEventCreate");
    return e;
  }
}
