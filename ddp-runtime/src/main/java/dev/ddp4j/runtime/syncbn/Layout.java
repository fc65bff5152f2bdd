package dev.ddp4j.runtime.syncbn;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Batch norm statistics are per channel over rows: a dense input {@code [N, C]} already is rows; an
 * NCHW input {@code [N, C, H, W]} becomes {@code [N*H*W, C]} (one row per example and pixel).
 */
final class Layout {

  private Layout() {}

  static INDArray toRows(INDArray x) {
    switch (x.rank()) {
      case 2:
        return x;
      case 4:
        long c = x.size(1);
        return x.permute(0, 2, 3, 1).dup('c').reshape('c', x.size(0) * x.size(2) * x.size(3), c);
      default:
        throw new IllegalArgumentException(
            "synchronised batch norm takes [N, C] or [N, C, H, W] inputs, got shape "
                + java.util.Arrays.toString(x.shape()));
    }
  }

  /** The inverse of {@link #toRows} for an input of shape {@code shape}. */
  static INDArray fromRows(INDArray rows, long[] shape) {
    if (shape.length == 2) {
      return rows;
    }
    return rows.reshape('c', shape[0], shape[2], shape[3], shape[1]).permute(0, 3, 1, 2);
  }
}
