package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.plan.Algorithm;

/**
 * How one kernel launch runs: which algorithm, how many blocks (one-shot: pusher blocks, the grid
 * is twice that; two-shot and ring: the grid) and the pipeline step per block (one-shot, ring).
 */
record AllReduceTuning(Algorithm algorithm, int blocks, long stepBytes) {

  public AllReduceTuning {
    if (blocks < 1 || blocks > ScratchLayout.MAX_BLOCKS / 2) {
      throw new IllegalArgumentException(
          "blocks : "
              + blocks
              + " (expected: 1 <= blocks <= "
              + ScratchLayout.MAX_BLOCKS / 2
              + ")");
    }
    if (stepBytes < 16 || stepBytes % 16 != 0) {
      throw new IllegalArgumentException(
          "stepBytes : " + stepBytes + " (expected: >= 16 and a multiple of 16)");
    }
  }

  /** The grid size of the launch. */
  int gridBlocks() {
    return algorithm == Algorithm.ONESHOT ? 2 * blocks : blocks;
  }

  /**
   * This tuning with a step large enough that a ring launch of {@code bytes} on {@code ranks} ranks
   * counts its 2(n-1) x pieces steps within the flags' 16 bits (a forced small step on a large
   * launch would wrap them); unchanged where it already does.
   */
  AllReduceTuning fitRingFlags(long bytes, int ranks) {
    long slicePerBlock = (bytes / ranks + 16) / blocks + 16;
    long maxPieces = ScratchLayout.MAX_STEPS / (2L * (ranks - 1));
    long minStep = ((slicePerBlock / maxPieces) / 16 + 1) * 16;
    return stepBytes >= minStep ? this : new AllReduceTuning(algorithm, blocks, minStep);
  }
}
