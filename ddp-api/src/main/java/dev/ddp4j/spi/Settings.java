package dev.ddp4j.spi;

import dev.ddp4j.ConfigException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The one reader of ddp4j's environment variables: every module reads its settings through this
 * class, which takes the environment once ({@link #process()}) and gives typed values with one
 * error style, {@code NAME=value (expected: ...)}, naming the variable that carried the value.
 *
 * <p>A {@code DDP4J_} name whose NCCL counterpart means the same thing falls back to it ({@code
 * DDP4J_ALGO} to {@code NCCL_ALGO}, ...; {@link #NCCL_FALLBACKS}), so advice written for NCCL
 * carries over; the ddp4j name wins where both are set. A blank value counts as unset.
 */
public final class Settings {

  /**
   * The ddp4j variables that fall back to {@code NCCL_} + the rest of their name, because NCCL's
   * variable of that name means the same (docs/configuration.md lists them).
   */
  public static final Set<String> NCCL_FALLBACKS =
      Set.of(
          "DDP4J_DEBUG",
          "DDP4J_ALGO",
          "DDP4J_NCHANNELS",
          "DDP4J_MIN_NCHANNELS",
          "DDP4J_MAX_NCHANNELS",
          "DDP4J_TOPO_FILE",
          "DDP4J_TOPO_DUMP_FILE",
          "DDP4J_SHM_DISABLE",
          "DDP4J_P2P_DISABLE",
          "DDP4J_SOCKET_IFNAME");

  private static final Settings EMPTY = new Settings(Map.of());

  /** The process's environment, taken on first use: it cannot change under a running JVM. */
  private static volatile Settings process;

  private final Map<String, String> variables;

  private Settings(Map<String, String> variables) {
    this.variables = Map.copyOf(variables);
  }

  /** This process's environment (read once per JVM). */
  public static Settings process() {
    Settings s = process;
    if (s == null) {
      s = new Settings(System.getenv());
      process = s;
    }
    return s;
  }

  /** Settings from {@code variables} (a worker's environment, or a test's). */
  public static Settings of(Map<String, String> variables) {
    return new Settings(variables);
  }

  /** No variable set: every setting at its default. */
  public static Settings empty() {
    return EMPTY;
  }

  /** Every variable, for a child process's environment (never parsed from here). */
  public Map<String, String> variables() {
    return variables;
  }

  /**
   * The variable that carries {@code name}'s value: {@code name} when set, else its NCCL fallback
   * when that is set, else {@code name}.
   */
  public String source(String name) {
    if (!blank(variables.get(name))) {
      return name;
    }
    String nccl = ncclName(name);
    return nccl != null && !blank(variables.get(nccl)) ? nccl : name;
  }

  /** {@code name}'s value (or its NCCL fallback's), trimmed; empty when unset or blank. */
  public Optional<String> text(String name) {
    String v = variables.get(source(name));
    return blank(v) ? Optional.empty() : Optional.of(v.trim());
  }

  /** {@code name}'s value, or {@code dflt} when unset. */
  public String text(String name, String dflt) {
    return text(name).orElse(dflt);
  }

  /** Whether {@code name} (or its NCCL fallback) is set to something not blank. */
  public boolean isSet(String name) {
    return text(name).isPresent();
  }

  /** {@code 1} or {@code 0} (also {@code true} or {@code false}); {@code dflt} when unset. */
  public boolean flag(String name, boolean dflt) {
    Optional<String> v = text(name);
    if (v.isEmpty()) {
      return dflt;
    }
    return switch (v.get().toLowerCase(Locale.ROOT)) {
      case "1", "true" -> true;
      case "0", "false" -> false;
      default -> throw invalid(name, "1 or 0");
    };
  }

  /** A whole number from {@code min} to {@code max}; {@code dflt} when unset. */
  public int whole(String name, int dflt, int min, int max) {
    return (int) wholeLong(name, dflt, min, max);
  }

  /** A whole number from {@code min} to {@code max}; {@code dflt} when unset. */
  public long wholeLong(String name, long dflt, long min, long max) {
    Optional<String> v = text(name);
    if (v.isEmpty()) {
      return dflt;
    }
    long n;
    try {
      n = Long.parseLong(v.get());
    } catch (NumberFormatException e) {
      throw invalid(name, range(min, max));
    }
    if (n < min || n > max) {
      throw invalid(name, range(min, max));
    }
    return n;
  }

  /** A number of seconds (fractions allowed) above 0; {@code dflt} when unset. */
  public double seconds(String name, double dflt) {
    Optional<String> v = text(name);
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      double s = Double.parseDouble(v.get());
      if (s > 0 && Double.isFinite(s)) {
        return s;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw invalid(name, "a number of seconds above 0, e.g. 300");
  }

  /**
   * {@code name}'s value through {@code parse}, which throws {@link IllegalArgumentException} on a
   * value it does not accept; {@code expected} says what it accepts. Empty when unset.
   */
  public <T> Optional<T> parsed(String name, Function<String, T> parse, String expected) {
    Optional<String> v = text(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(parse.apply(v.get()));
    } catch (IllegalArgumentException e) {
      throw invalid(name, expected);
    }
  }

  /**
   * The error for {@code name}'s value, in the one style: {@code NAME=value (expected: ...)}, the
   * name being the variable that carried it.
   */
  public ConfigException invalid(String name, String expected) {
    String source = source(name);
    return new ConfigException(
        source + "=" + variables.getOrDefault(source, "") + " (expected: " + expected + ")");
  }

  private static String range(long min, long max) {
    if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) {
      return "a whole number >= " + min;
    }
    return "a whole number from " + min + " to " + max;
  }

  private static String ncclName(String name) {
    return NCCL_FALLBACKS.contains(name) ? "NCCL_" + name.substring("DDP4J_".length()) : null;
  }

  private static boolean blank(String v) {
    return v == null || v.isBlank();
  }
}
