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

  /**
   * Where the next piece of {@code lengthBytes} bytes may be written in place (a native address),
   * or 0 if the connection is full or this transport has no such memory; a non-zero answer must be
   * followed by {@link #publish} before any other call. Lets the executor write a reduced piece
   * straight into the peer's slot while it is hot in cache, instead of writing it to the working
   * buffer and copying it out again.
   */
  default long reserve(int lengthBytes) {
    return 0;
  }

  /** Sends the piece written at the address {@link #reserve} returned. */
  default void publish(int lengthBytes, PieceTag tag) {
    throw new UnsupportedOperationException(route() + " has no in-place send slots");
  }

  /** What this port crosses, for route logs: {@code SHM over NODE}, {@code NET/Socket}. */
  String route();
}
