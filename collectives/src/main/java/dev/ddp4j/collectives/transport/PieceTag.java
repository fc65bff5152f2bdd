package dev.ddp4j.collectives.transport;

/**
 * The identity of the collective a piece belongs to, carried in every piece's header so that the
 * receiver notices ranks that called different collectives (CollectiveMismatchException) at no
 * extra message. Mutable and reused: hot paths allocate nothing.
 */
public final class PieceTag {

  /** The collective's per-group sequence number. */
  public long sequence;

  /** The collective's element count (per rank for allGather / reduceScatter inputs). */
  public long count;

  /** The collective's kind, dtype, op and root packed by the executor. */
  public int meta;

  public PieceTag set(long sequence, long count, int meta) {
    this.sequence = sequence;
    this.count = count;
    this.meta = meta;
    return this;
  }

  public boolean sameAs(PieceTag other) {
    return sequence == other.sequence && count == other.count && meta == other.meta;
  }
}
