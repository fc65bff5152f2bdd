package dev.ddp4j;

import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Locale;

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
    return fromEnvironment(Settings.process());
  }

  /** Options from {@code env}: DDP4J_INIT_METHOD, DDP4J_BACKEND, DDP4J_TIMEOUT_SECONDS. */
  public static InitOptions fromEnvironment(Settings env) {
    String url = env.text(INIT_METHOD_VAR, "env://");
    String backend = env.text(BACKEND_VAR, "auto");
    double seconds = env.seconds(TIMEOUT_VAR, DEFAULT_TIMEOUT.toSeconds());
    Duration timeout = Duration.ofMillis(Math.round(seconds * 1000));
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
