package dev.ddp4j.collectives.transport;

/**
 * The sending end of one directed connection (this rank to a peer, on one channel): a FIFO of
 * pieces of at most {@link #maxPieceBytes()} bytes. {@link #offer} copies the piece out of the
 * caller's memory before it returns true, so the caller may overwrite it at once; it never blocks.
 * Used by one thread, the group's progress thread.
 */
public interface SendPort {

  /** The largest piece {@link #offer} takes. */
  int maxPieceBytes();

  /**
   * Queues a piece of {@code lengthBytes} bytes at Unsafe address ({@code base}, {@code offset}),
   * tagged with the collective's identity (checked by the receiver).
   *
   * @return false if the connection is full (back-pressure): retry later
   */
  boolean offer(Object base, long offset, int lengthBytes, PieceTag tag);

  /** What this port crosses, for route logs: {@code SHM over NODE}, {@code NET/Socket}. */
  String route();
}
