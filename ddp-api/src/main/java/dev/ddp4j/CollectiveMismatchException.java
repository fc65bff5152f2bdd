package dev.ddp4j;

/**
 * Ranks called the same collective (by sequence number) with different arguments: count, dtype, op
 * or root. The message names both sides, e.g. {@code allReduce #17 on rank 3: 4096 float32, but
 * rank 0 passed 2048 float32 (every rank must pass the same count and dtype)}.
 */
public class CollectiveMismatchException extends DdpException {
  private static final long serialVersionUID = 1L;

  public CollectiveMismatchException(String message) {
    super(message);
  }
}
