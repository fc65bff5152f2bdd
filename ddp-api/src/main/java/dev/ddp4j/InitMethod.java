package dev.ddp4j;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where the ranks of a job meet, as PyTorch's {@code init_method} URLs say it:
 *
 * <ul>
 *   <li>{@code env://}: the TCP store at MASTER_ADDR:MASTER_PORT (what the launcher sets);
 *   <li>{@code tcp://host:port}: the TCP store at that address;
 *   <li>{@code file:///path}: a store kept in one file on a filesystem every rank shares;
 *   <li>{@link #userStore()}: a {@link Store} the program made itself and passed to {@link
 *       InitOptions.Builder#store} (no URL: PyTorch's {@code init_process_group(store=...)}).
 * </ul>
 *
 * @param scheme which of the four
 * @param host the store's host for TCP, null otherwise (and for ENV before the environment is read)
 * @param port the store's port for TCP, 0 otherwise
 * @param path the store file for FILE, null otherwise
 */
public record InitMethod(Scheme scheme, String host, int port, Path path) {

  /** The kinds of init method. */
  public enum Scheme {
    ENV,
    TCP,
    FILE,
    /** A store the program passed in ({@link InitOptions.Builder#store}). */
    STORE
  }

  private static final String FORMS = "expected: env://, tcp://HOST:PORT or file:///ABSOLUTE/PATH";

  /** {@code env://}. */
  public static InitMethod env() {
    return new InitMethod(Scheme.ENV, null, 0, null);
  }

  /** {@code tcp://host:port}. */
  /** The ranks meet through a store the program made itself ({@link InitOptions.Builder#store}). */
  public static InitMethod userStore() {
    return new InitMethod(Scheme.STORE, null, 0, null);
  }

  public static InitMethod tcp(String host, int port) {
    return new InitMethod(Scheme.TCP, host, port, null);
  }

  public InitMethod {
    if (scheme == null) {
      throw new ConfigException("init method scheme : null (" + FORMS + ")");
    }
    if (scheme == Scheme.TCP) {
      if (host == null || host.isBlank()) {
        throw new ConfigException("init method tcp:// needs a host (" + FORMS + ")");
      }
      checkPort(port, "tcp://" + host + ":" + port);
    }
    if (scheme == Scheme.FILE && (path == null || !path.isAbsolute())) {
      throw new ConfigException(
          "init method file:// needs an absolute path, got " + path + " (" + FORMS + ")");
    }
  }

  /**
   * Parses an init-method URL.
   *
   * @throws ConfigException naming the value and the accepted forms
   */
  public static InitMethod parse(String url) {
    if (url == null || url.isBlank()) {
      throw new ConfigException("init method is empty (" + FORMS + ")");
    }
    String u = url.trim();
    if (u.equalsIgnoreCase("env://") || u.equalsIgnoreCase("env:")) {
      return env();
    }
    if (!u.contains("://")) {
      throw new ConfigException("init method '" + url + "' has no scheme (" + FORMS + ")");
    }
    URI uri;
    try {
      uri = new URI(u);
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "init method '" + url + "' is not a URL: " + e.getReason() + " (" + FORMS + ")");
    }
    String scheme =
        uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
    switch (scheme) {
      case "tcp":
        {
          String host = uri.getHost();
          if (host == null || uri.getPort() < 0) {
            throw new ConfigException(
                "init method '"
                    + url
                    + "' lacks a host or port (expected: tcp://HOST:PORT, e.g. tcp://10.0.0.5:29500)");
          }
          if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
          }
          checkPort(uri.getPort(), url);
          return tcp(host, uri.getPort());
        }
      case "file":
        {
          String p = uri.getPath();
          if (p == null || p.isEmpty() || !p.startsWith("/")) {
            throw new ConfigException(
                "init method '"
                    + url
                    + "' needs an absolute path (expected: file:///ABSOLUTE/PATH, three slashes)");
          }
          if (uri.getAuthority() != null && !uri.getAuthority().isEmpty()) {
            throw new ConfigException(
                "init method '"
                    + url
                    + "' names host '"
                    + uri.getAuthority()
                    + "'; file:// takes a local path (expected: file:///ABSOLUTE/PATH, three slashes)");
          }
          return new InitMethod(Scheme.FILE, null, 0, Paths.get(p));
        }
      default:
        throw new ConfigException(
            "init method '" + url + "' has an unknown scheme (" + FORMS + ")");
    }
  }

  private static void checkPort(int port, String what) {
    if (port < 1 || port > 65535) {
      throw new ConfigException(
          "init method '" + what + "': port " + port + " is out of range (expected: 1 to 65535)");
    }
  }

  /** The URL form, e.g. {@code tcp://10.0.0.5:29500}. */
  @Override
  public String toString() {
    switch (scheme) {
      case ENV:
        return "env://";
      case TCP:
        return "tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
      case STORE:
        return "the program's own store";
      default:
        return "file://" + path;
    }
  }
}
