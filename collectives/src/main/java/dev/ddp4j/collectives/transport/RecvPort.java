package dev.ddp4j.collectives.transport;

/**
 * The receiving end of one directed connection (a peer to this rank, on one channel). {@link
 * #poll()} says whether a piece is ready; the piece's bytes stay valid at native {@link #address()}
 * until {@link #release()}, so the executor reduces or copies straight out of the transport's
 * memory. Used by one thread, the group's progress thread.
 */
public interface RecvPort {

  /** True if a piece is ready (then the accessors below describe it). Never blocks. */
  boolean poll();

  /** The native address of the ready piece's first byte. */
  long address();

  /** The ready piece's length in bytes. */
  int lengthBytes();

  /** Reads the ready piece's tag into {@code into}. */
  void tag(PieceTag into);

  /** Frees the ready piece's slot for the sender. */
  void release();
}
