package dev.ddp4j.runtime.syncbn;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Sums a small vector of per-channel statistics over every rank, in place, and returns once the sum
 * is there. Every rank calls it at the same point of forward and backward (same layers, same
 * order), so the collectives line up.
 */
@FunctionalInterface
public interface StatsReducer {

  /**
   * Replaces {@code stats} (a contiguous DOUBLE vector outside workspaces) by its sum over ranks.
   */
  void sumInPlace(INDArray stats);
}
