package dev.ddp4j.collectives.cpu;

import java.util.Locale;
import java.util.Map;

/**
 * NCCL-style debug lines on stderr, gated by {@code DDP4J_DEBUG} (fallback {@code NCCL_DEBUG}):
 * WARN (default) prints warnings, INFO adds routes and setup, TRACE and DETAIL add per-collective
 * lines. Each line starts {@code host:pid:thread [rank] DDP4J LEVEL}.
 */
public final class DebugLog {

  public enum Level {
    VERSION,
    WARN,
    INFO,
    TRACE,
    DETAIL
  }

  private final Level level;
  private final String prefix;

  public DebugLog(Map<String, String> env, int rank) {
    String v = env.get("DDP4J_DEBUG");
    if (v == null || v.isBlank()) {
      v = env.getOrDefault("NCCL_DEBUG", "WARN");
    }
    Level parsed;
    try {
      parsed = Level.valueOf(v.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      parsed = Level.WARN;
    }
    this.level = parsed;
    String host = System.getenv().getOrDefault("HOSTNAME", "localhost");
    this.prefix = host + ":" + ProcessHandle.current().pid() + ":";
    this.rank = rank;
  }

  private final int rank;

  public boolean enabled(Level at) {
    return level.compareTo(at) >= 0;
  }

  public void log(Level at, String message) {
    if (enabled(at)) {
      System.err.println(
          prefix + Thread.currentThread().getId() + " [" + rank + "] DDP4J " + at + " " + message);
    }
  }
}
