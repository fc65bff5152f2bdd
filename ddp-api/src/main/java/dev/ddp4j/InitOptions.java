package dev.ddp4j;

import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How {@link Ddp#init(InitOptions)} joins the job, built with {@link #builder()}. What the builder
 * leaves unset comes from the environment:
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
 * <p>The rank and world size, when not set here, come from RANK and WORLD_SIZE ({@link
 * WorkerEnvironment}).
 *
 * <pre>{@code
 * ProcessGroup pg = Ddp.init(InitOptions.builder()
 *     .initMethod("tcp://10.0.0.5:29500").rank(rank).worldSize(4).backend("cpu").build());
 * ProcessGroup own = Ddp.init(InitOptions.builder().store(myStore).rank(rank).worldSize(4).build());
 * }</pre>
 */
public final class InitOptions {

  public static final String INIT_METHOD_VAR = "DDP4J_INIT_METHOD";
  public static final String BACKEND_VAR = "DDP4J_BACKEND";
  public static final String TIMEOUT_VAR = "DDP4J_TIMEOUT_SECONDS";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);

  private final InitMethod initMethod;
  private final String backend;
  private final OptionalInt rank;
  private final OptionalInt worldSize;
  private final Duration timeout;
  private final Store store; // null unless the program brought its own

  private InitOptions(Builder b, Settings env) {
    this.store = b.store;
    this.initMethod =
        b.store != null
            ? InitMethod.userStore()
            : b.initMethod != null
                ? b.initMethod
                : InitMethod.parse(env.text(INIT_METHOD_VAR, "env://"));
    this.backend = backendName(b.backend != null ? b.backend : env.text(BACKEND_VAR, "auto"));
    this.timeout =
        b.timeout != null
            ? b.timeout
            : Duration.ofMillis(
                Math.round(env.seconds(TIMEOUT_VAR, DEFAULT_TIMEOUT.toSeconds()) * 1000));
    this.rank = b.rank;
    this.worldSize = b.worldSize;
    if (rank.isPresent() && worldSize.isPresent() && rank.getAsInt() >= worldSize.getAsInt()) {
      throw new ConfigException(
          "rank "
              + rank.getAsInt()
              + " of worldSize "
              + worldSize.getAsInt()
              + " (expected: 0 <= rank < worldSize)");
    }
  }

  // The name is checked against the backends on the classpath in Ddp.init (providers of the SPI may
  // add names); here only its form.
  private static String backendName(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    if (!n.matches("[a-z][a-z0-9_-]*")) {
      throw new ConfigException(
          "backend '" + n + "' is not a backend name (expected: auto, cpu, cuda or nccl)");
    }
    return n;
  }

  /** Options to set; what is left unset is read from the environment at {@link Builder#build()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Options from this process's environment. */
  public static InitOptions fromEnvironment() {
    return builder().build();
  }

  /** Options from {@code env}: DDP4J_INIT_METHOD, DDP4J_BACKEND, DDP4J_TIMEOUT_SECONDS. */
  public static InitOptions fromEnvironment(Settings env) {
    return builder().build(env);
  }

  /** Where the ranks meet ({@link InitMethod#userStore()} when {@link #store()} is set). */
  public InitMethod initMethod() {
    return initMethod;
  }

  /**
   * {@code auto}, {@code cpu}, {@code cuda}, {@code nccl}, or another backend on the classpath
   * (checked by {@link Ddp#init}).
   */
  public String backend() {
    return backend;
  }

  /** This process's rank, or empty to read RANK. */
  public OptionalInt rank() {
    return rank;
  }

  /** The number of ranks, or empty to read WORLD_SIZE. */
  public OptionalInt worldSize() {
    return worldSize;
  }

  /** Timeout of store waits and collectives. */
  public Duration timeout() {
    return timeout;
  }

  /** The program's own store, if it passed one; the group does not close it. */
  public Optional<Store> store() {
    return Optional.ofNullable(store);
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.store = store;
    b.initMethod = store == null ? initMethod : null;
    b.backend = backend;
    b.rank = rank;
    b.worldSize = worldSize;
    b.timeout = timeout;
    return b;
  }

  @Override
  public String toString() {
    return "InitOptions[initMethod="
        + initMethod
        + ", backend="
        + backend
        + ", rank="
        + (rank.isPresent() ? rank.getAsInt() : "RANK")
        + ", worldSize="
        + (worldSize.isPresent() ? worldSize.getAsInt() : "WORLD_SIZE")
        + ", timeout="
        + timeout
        + "]";
  }

  /** Sets some options; {@link #build()} reads the rest from the environment. */
  public static final class Builder {
    private InitMethod initMethod;
    private String backend;
    private OptionalInt rank = OptionalInt.empty();
    private OptionalInt worldSize = OptionalInt.empty();
    private Duration timeout;
    private Store store;

    private Builder() {}

    /** Where the ranks meet: {@code env://}, {@code tcp://HOST:PORT} or {@code file:///PATH}. */
    public Builder initMethod(String url) {
      return initMethod(InitMethod.parse(url));
    }

    public Builder initMethod(InitMethod method) {
      if (method == null || method.scheme() == InitMethod.Scheme.STORE) {
        throw new ConfigException(
            "initMethod : "
                + method
                + " (expected: env://, tcp://HOST:PORT or file:///PATH; pass your own store with store(...))");
      }
      this.initMethod = method;
      return this;
    }

    /** {@code auto} (the default), {@code cpu}, {@code cuda}, {@code nccl} or another provider. */
    public Builder backend(String name) {
      if (name == null) {
        throw new ConfigException("backend : null (expected: auto, cpu, cuda or nccl)");
      }
      this.backend = name;
      return this;
    }

    public Builder rank(int r) {
      if (r < 0) {
        throw new ConfigException("rank : " + r + " (expected: >= 0)");
      }
      this.rank = OptionalInt.of(r);
      return this;
    }

    public Builder worldSize(int n) {
      if (n < 1) {
        throw new ConfigException("worldSize : " + n + " (expected: >= 1)");
      }
      this.worldSize = OptionalInt.of(n);
      return this;
    }

    public Builder timeout(Duration t) {
      if (t == null || t.isNegative() || t.isZero()) {
        throw new ConfigException(
            "timeout : " + t + " (expected: a positive duration, e.g. 300 s)");
      }
      this.timeout = t;
      return this;
    }

    /**
     * Meet through {@code s}, a store the program made (every rank passes a store over the same
     * keys), instead of an init method. The group uses it and leaves it open: the program closes it
     * after the group.
     */
    public Builder store(Store s) {
      if (s == null) {
        throw new ConfigException("store : null (expected: a Store every rank shares)");
      }
      this.store = s;
      return this;
    }

    /** The options, with what was left unset read from this process's environment. */
    public InitOptions build() {
      return build(Settings.process());
    }

    /** The options, with what was left unset read from {@code env}. */
    public InitOptions build(Settings env) {
      if (store != null && initMethod != null) {
        throw new ConfigException(
            "both a store and init method "
                + initMethod
                + " were given (expected: one of them; the store replaces the init method)");
      }
      return new InitOptions(this, env);
    }
  }
}
