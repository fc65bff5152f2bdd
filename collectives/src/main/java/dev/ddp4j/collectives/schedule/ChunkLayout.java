package dev.ddp4j.collectives.schedule;

/**
 * Cuts a working buffer into {@code channels x chunks} ranges: channel {@code c}'s share of chunk
 * {@code j}. Ring algorithms move chunk indices around; the layout says which elements a chunk
 * index means.
 *
 * <p>For ALL_REDUCE and BROADCAST the buffer is cut into contiguous channel segments and each
 * segment into {@code chunks} nearly equal parts (the first {@code len % chunks} parts one element
 * longer). For ALL_GATHER and REDUCE_SCATTER chunk {@code j} is rank block {@code j}, and channel
 * {@code c} takes the {@code c}-th part of every block, so each rank's block stays where the
 * collective says it is.
 */
final class ChunkLayout {

  private final long count;
  private final int channels;
  private final int chunks;
  private final boolean blocksByRank;

  private ChunkLayout(long count, int channels, int chunks, boolean blocksByRank) {
    this.count = count;
    this.channels = channels;
    this.chunks = chunks;
    this.blocksByRank = blocksByRank;
  }

  /** Contiguous channel segments, each cut into {@code chunks} parts. */
  static ChunkLayout segmented(long count, int channels, int chunks) {
    return new ChunkLayout(count, channels, chunks, false);
  }

  /** {@code chunks} rank blocks of {@code count / chunks}, each cut into {@code channels} parts. */
  static ChunkLayout byRankBlock(long count, int channels, int chunks) {
    return new ChunkLayout(count, channels, chunks, true);
  }

  /** First element of channel {@code c}'s part of chunk {@code j}. */
  long offset(int c, int j) {
    if (blocksByRank) {
      long block = count / chunks;
      return j * block + partStart(block, channels, c);
    }
    long segStart = partStart(count, channels, c);
    long segLen = partStart(count, channels, c + 1) - segStart;
    return segStart + partStart(segLen, chunks, j);
  }

  /** Number of elements of channel {@code c}'s part of chunk {@code j} (may be 0). */
  long length(int c, int j) {
    if (blocksByRank) {
      long block = count / chunks;
      return partStart(block, channels, c + 1) - partStart(block, channels, c);
    }
    long segStart = partStart(count, channels, c);
    long segLen = partStart(count, channels, c + 1) - segStart;
    return partStart(segLen, chunks, j + 1) - partStart(segLen, chunks, j);
  }

  /**
   * Start of part {@code i} when {@code len} elements are cut into {@code parts} nearly equal
   * parts.
   */
  static long partStart(long len, int parts, int i) {
    long base = len / parts;
    long extra = len % parts;
    return i * base + Math.min(i, extra);
  }
}
