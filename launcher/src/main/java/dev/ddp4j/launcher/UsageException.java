package dev.ddp4j.launcher;

/**
 * A flag, URL or program argument the launcher cannot use. The message is one line naming the flag,
 * the value and the accepted forms; the launcher prints it and exits 2.
 */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
