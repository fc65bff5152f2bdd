package dev.ddp4j.collectives.log;

import java.util.Locale;
import java.util.Map;
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

  private static final AtomicBoolean UNKNOWN_LEVEL_REPORTED = new AtomicBoolean();

  private final Level level;
  private final String prefix;
  private final int rank;

  public DebugLog(Map<String, String> env, int rank) {
    String name = "DDP4J_DEBUG";
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      name = "NCCL_DEBUG";
      v = env.getOrDefault(name, "WARN");
    }
    Level parsed;
    boolean unknown = false;
    try {
      parsed = v.isBlank() ? Level.WARN : Level.valueOf(v.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      parsed = Level.WARN;
      unknown = true;
    }
    this.level = parsed;
    String host = System.getenv().getOrDefault("HOSTNAME", "localhost");
    this.prefix = host + ":" + ProcessHandle.current().pid() + ":";
    this.rank = rank;
    // Every group and model makes its own DebugLog from the same environment: say it once per JVM.
    if (unknown && !UNKNOWN_LEVEL_REPORTED.getAndSet(true)) {
      log(
          Level.WARN,
          name
              + "="
              + v
              + " is not a level (expected: WARN, INFO or TRACE; also VERSION, DETAIL); logging at"
              + " WARN");
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
