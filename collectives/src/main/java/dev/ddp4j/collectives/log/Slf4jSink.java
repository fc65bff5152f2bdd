package dev.ddp4j.collectives.log;

import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends {@link DebugLog}'s lines to SLF4J's logger {@value #LOGGER} when the application has SLF4J
 * with a binding that keeps lines. Decided once per JVM. SLF4J is an optional dependency: where its
 * API is absent (launcher.jar holds none) this class never touches it, and where it has no binding
 * this class never calls {@link LoggerFactory}, which would print SLF4J's "no binding" warning in
 * every worker.
 */
final class Slf4jSink {

  static final String LOGGER = "dev.ddp4j";

  private static final boolean BOUND = apiPresent() && bindingPresent() && Bound.keepsLines();

  private Slf4jSink() {}

  /** Logs {@code line} through SLF4J; false when SLF4J is not there to take it. */
  static boolean log(DebugLog.Level at, String line) {
    if (!BOUND) {
      return false;
    }
    Bound.log(at, line);
    return true;
  }

  private static boolean apiPresent() {
    return loads("org.slf4j.LoggerFactory");
  }

  /** An SLF4J 1.7 binding ({@code StaticLoggerBinder}) or an SLF4J 2 provider is on the path. */
  private static boolean bindingPresent() {
    if (loads("org.slf4j.impl.StaticLoggerBinder")) {
      return true;
    }
    ClassLoader loader = Slf4jSink.class.getClassLoader();
    try {
      Class<?> provider = Class.forName("org.slf4j.spi.SLF4JServiceProvider", false, loader);
      return ServiceLoader.load(provider, loader).findFirst().isPresent();
    } catch (ClassNotFoundException | LinkageError | java.util.ServiceConfigurationError e) {
      return false;
    }
  }

  private static boolean loads(String name) {
    try {
      Class.forName(name, false, Slf4jSink.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Loaded only once SLF4J and a binding are known to be there. */
  private static final class Bound {
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    /** slf4j-nop (the examples bind it to silence DL4J) drops every line: stderr is better. */
    static boolean keepsLines() {
      return !LoggerFactory.getILoggerFactory().getClass().getName().contains("NOP");
    }

    static void log(DebugLog.Level at, String line) {
      switch (at) {
        case WARN -> LOG.warn(line);
        case VERSION, INFO -> LOG.info(line);
        case TRACE -> LOG.debug(line);
        case DETAIL -> LOG.trace(line);
      }
    }
  }
}
