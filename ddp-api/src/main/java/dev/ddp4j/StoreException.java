package dev.ddp4j;

/**
 * A key-value store call failed: the server refused it, the connection could not be kept, or the
 * reply was bad.
 */
public class StoreException extends DdpException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
