package dev.ddp4j;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * How {@link Ddp#init(InitOptions)} joins the job. Unset fields come from the environment:
 *
 * <table>
 *   <caption>Variables read</caption>
 *   <tr><th>variable</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>DDP4J_INIT_METHOD</td><td>env://, tcp://HOST:PORT or file:///PATH</td><td>env://</td></tr>
 *   <tr><td>DDP4J_BACKEND</td><td>auto, cpu, cuda or nccl</td><td>auto (cuda where a GPU and the cuda backend
 *       are present, else cpu; nccl only when named)</td></tr>
 *   <tr><td>DDP4J_TIMEOUT_SECONDS</td><td>timeout of store waits and collectives</td><td>300</td></tr>
 * </table>
 *
 * @param initMethod where the ranks meet
 * @param backend {@code auto}, {@code cpu}, {@code cuda}, {@code nccl}, or another backend on the
 *     classpath (checked by {@link Ddp#init})
 * @param rank this process's rank, or -1 to read RANK
 * @param worldSize the number of ranks, or -1 to read WORLD_SIZE
 * @param timeout timeout of store waits and collectives
 */
public record InitOptions(
    InitMethod initMethod, String backend, int rank, int worldSize, Duration timeout) {

  public static final String INIT_METHOD_VAR = "DDP4J_INIT_METHOD";
  public static final String BACKEND_VAR = "DDP4J_BACKEND";
  public static final String TIMEOUT_VAR = "DDP4J_TIMEOUT_SECONDS";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);

  public InitOptions {
    if (initMethod == null) {
      throw new ConfigException(
          "initMethod : null (expected: env://, tcp://HOST:PORT or file:///PATH)");
    }
    backend = backend == null ? "auto" : backend.trim().toLowerCase(Locale.ROOT);
    // The name is checked against the backends on the classpath in Ddp.init (providers of the SPI
    // may add names); here only its form.
    if (!backend.matches("[a-z][a-z0-9_-]*")) {
      throw new ConfigException(
          "backend '" + backend + "' is not a backend name (expected: auto, cpu, cuda or nccl)");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new ConfigException(
          "timeout : " + timeout + " (expected: a positive duration, e.g. 300 s)");
    }
    if (rank < -1 || worldSize < -1 || worldSize == 0) {
      throw new ConfigException(
          "rank "
              + rank
              + ", worldSize "
              + worldSize
              + " (expected: -1 to read RANK/WORLD_SIZE, else rank >= 0, worldSize >= 1)");
    }
  }

  /** Options from this process's environment. */
  public static InitOptions fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /** Options from {@code env}: DDP4J_INIT_METHOD, DDP4J_BACKEND, DDP4J_TIMEOUT_SECONDS. */
  public static InitOptions fromEnvironment(Map<String, String> env) {
    String url = env.getOrDefault(INIT_METHOD_VAR, "env://");
    String backend = env.getOrDefault(BACKEND_VAR, "auto");
    Duration timeout = DEFAULT_TIMEOUT;
    String t = env.get(TIMEOUT_VAR);
    if (t != null && !t.isBlank()) {
      try {
        timeout = Duration.ofMillis(Math.round(Double.parseDouble(t.trim()) * 1000));
      } catch (NumberFormatException e) {
        throw new ConfigException(
            TIMEOUT_VAR + "='" + t + "' is not a number of seconds (expected: e.g. 300)");
      }
    }
    return new InitOptions(InitMethod.parse(url), backend, -1, -1, timeout);
  }

  public InitOptions withInitMethod(String url) {
    return new InitOptions(InitMethod.parse(url), backend, rank, worldSize, timeout);
  }

  public InitOptions withBackend(String name) {
    return new InitOptions(initMethod, name, rank, worldSize, timeout);
  }

  public InitOptions withRank(int newRank, int newWorldSize) {
    return new InitOptions(initMethod, backend, newRank, newWorldSize, timeout);
  }

  public InitOptions withTimeout(Duration newTimeout) {
    return new InitOptions(initMethod, backend, rank, worldSize, newTimeout);
  }
}
