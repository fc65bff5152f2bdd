package dev.ddp4j;

/**
 * A setting given by the user (environment variable, flag, URL or option) is missing or malformed.
 * The message names the setting, the value seen and the accepted forms, e.g. {@code RANK='x' is not
 * an integer (expected: 0 <= RANK < WORLD_SIZE, set by the launcher)}.
 */
public class ConfigException extends DdpException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
