package dev.ddp4j.collectives.log;

import dev.ddp4j.spi.Settings;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one logging facade of every ddp4j module: NCCL-style debug lines, gated by {@code
 * DDP4J_DEBUG} (fallback {@code NCCL_DEBUG}): WARN (default) emits warnings, INFO adds routes and
 * setup, TRACE and DETAIL add per-collective lines; VERSION keeps only what is logged at VERSION
 * (nothing today). An unknown value logs at WARN and says so once per JVM.
 *
 * <p>Where the application has SLF4J with a binding (DL4J's users do), lines go to SLF4J's logger
 * {@code dev.ddp4j} as {@code [rank] message} (WARN as warn, INFO as info, TRACE as debug, DETAIL
 * as trace) and the binding decides their fate, as for DL4J's own lines. Without SLF4J, without a
 * binding, or with slf4j-nop, they go to stderr, each starting {@code host:pid:thread [rank] DDP4J
 * LEVEL}, so {@code DDP4J_DEBUG=INFO} shows the routes whatever the classpath holds.
 */
public final class DebugLog {

  public enum Level {
    VERSION,
    WARN,
    INFO,
    TRACE,
    DETAIL
  }

  public static final String VAR = "DDP4J_DEBUG";

  private static final AtomicBoolean UNKNOWN_LEVEL_REPORTED = new AtomicBoolean();

  /** The host name lines start with where they go to stderr. */
  private static final String HOST = Settings.process().text("HOSTNAME", "localhost");

  private final Level level;
  private final String prefix;
  private final int rank;

  /** The level {@code DDP4J_DEBUG} (or {@code NCCL_DEBUG}) names in {@code settings}. */
  public DebugLog(Settings settings, int rank) {
    this(level(settings), rank);
  }

  public DebugLog(Level level, int rank) {
    this.level = level;
    this.prefix = HOST + ":" + ProcessHandle.current().pid() + ":";
    this.rank = rank;
  }

  /**
   * {@code DDP4J_DEBUG} (fallback {@code NCCL_DEBUG}) as a level; an unknown value is WARN, and
   * said once per JVM (every group and model reads the same settings).
   */
  public static Level level(Settings settings) {
    String v = settings.text(VAR, "WARN");
    try {
      return Level.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      if (!UNKNOWN_LEVEL_REPORTED.getAndSet(true)) {
        new DebugLog(Level.WARN, -1)
            .log(
                Level.WARN,
                settings.source(VAR)
                    + "="
                    + v
                    + " is not a level (expected: WARN, INFO or TRACE; also VERSION, DETAIL);"
                    + " logging at WARN");
      }
      return Level.WARN;
    }
  }

  public boolean enabled(Level at) {
    return level.compareTo(at) >= 0;
  }

  public void log(Level at, String message) {
    if (!enabled(at)) {
      return;
    }
    if (!Slf4jSink.log(at, "[" + rank + "] " + message)) {
      System.err.println(
          prefix + Thread.currentThread().getId() + " [" + rank + "] DDP4J " + at + " " + message);
    }
  }
}
