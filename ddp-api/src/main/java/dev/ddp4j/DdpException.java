package dev.ddp4j;

/**
 * The base of every error ddp4j raises. Messages name the values involved and the fix, e.g. {@code
 * allReduce on rank 3: 4096 floats, but rank 0 sent 2048 (every rank must pass the same count and
 * dtype)}.
 */
public class DdpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DdpException(String message) {
    super(message);
  }

  public DdpException(String message, Throwable cause) {
    super(message, cause);
  }
}
