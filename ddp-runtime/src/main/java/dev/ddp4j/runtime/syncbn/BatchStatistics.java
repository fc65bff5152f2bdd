package dev.ddp4j.runtime.syncbn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Batch normalisation maths over the concatenation of every rank's rows, for inputs laid out as
 * {@code [rows, channels]} (a CNN's {@code [N, C, H, W]} becomes {@code [N*H*W, C]}). The formulas
 * are DL4J 1.0.0-M2.1's own (biased batch variance, {@code eps} added before the square root), with
 * each sum over rows replaced by a sum over all ranks' rows. Everything here is float64 whatever
 * the network's type: a float32 E[x^2] - E[x]^2 loses the variance's digits where a channel's mean
 * is large against its spread, and that error compounds through deep stacks of BatchNorm layers.
 *
 * <p>Forward, one all-reduce of 2C+1 doubles. Each rank forms its count n_i, mean m_i and centred
 * sum of squares M2_i exactly (two passes), and the ranks are merged with Chan's parallel formula
 * {@code M2 = sum M2_i + sum n_i (m_i - m)^2}. Written about a per-channel shift s that every rank
 * already holds identically, it is a plain sum, so one all-reduce suffices (Chan's pairwise merge
 * would need an all-gather):
 *
 * <pre>
 * all-reduce [ n_i (m_i - s) | M2_i + n_i (m_i - s)^2 | n_i ]  =  [ A | B | M ]
 * mean = s + A/M,   M2 = B - A^2/M,   var = M2/M
 * </pre>
 *
 * The only cancellation left is in {@code B - A^2/M}, of size {@code M (mean - s)^2}; s is the
 * layer's running mean (a parameter, equal on every rank), which tracks the batch mean, so the
 * cancellation is small, and even with s = 0 (the first step) float64 keeps ~16 - 2 log10(|mean| /
 * std) digits, far more than float32's 7.
 *
 * <p>Backward, one all-reduce of 2C doubles: {@code dL/dx = (dxHat - sum(dxHat)/M - xHat *
 * sum(dxHat * xHat)/M) / std}, the form of DL4J's gradient with its {@code sum(x - mean)} term
 * (zero in exact arithmetic) dropped. The gamma/beta gradients stay local sums: DdpModel
 * all-reduces them like every other gradient.
 */
final class BatchStatistics {

  /** Global batch mean and biased variance (no eps), [C] each, float64. */
  final INDArray mean;

  final INDArray variance;

  /** sqrt(variance + eps), [1, C], float64. */
  final INDArray std;

  /** Rows on all ranks. */
  final long globalRows;

  private BatchStatistics(INDArray mean, INDArray variance, INDArray std, long globalRows) {
    this.mean = mean;
    this.variance = variance;
    this.std = std;
    this.globalRows = globalRows;
  }

  /**
   * Statistics of {@code x2d} ([rows, C], any float type) over every rank's rows, about {@code
   * shift} ([C], identical on every rank). Call outside workspaces.
   */
  static BatchStatistics of(INDArray x2d, INDArray shift, double eps, StatsReducer reducer) {
    long c = x2d.size(1);
    long n = x2d.size(0);
    INDArray s = shift.castTo(DataType.DOUBLE).reshape(c);
    INDArray packed = Nd4j.create(DataType.DOUBLE, 2 * c + 1);
    if (n > 0) {
      INDArray x = x2d.castTo(DataType.DOUBLE);
      INDArray localMean = x.mean(0).reshape(c);
      INDArray centred = x.subRowVector(localMean.reshape(1, c));
      INDArray localM2 = centred.muli(centred).sum(0).reshape(c);
      INDArray offset = localMean.sub(s);
      packed.get(range(0, c)).assign(offset.mul((double) n));
      packed.get(range(c, 2 * c)).assign(localM2.addi(offset.mul(offset).muli((double) n)));
      packed.putScalar(2 * c, (double) n);
    }
    reducer.sumInPlace(packed);
    long rows = Math.round(packed.getDouble(2 * c));
    if (rows == 0) {
      throw new IllegalStateException(
          "synchronised batch norm over 0 rows on all ranks: every rank's batch is empty");
    }
    INDArray a = packed.get(range(0, c)).dup();
    INDArray b = packed.get(range(c, 2 * c)).dup();
    INDArray mean = a.div((double) rows).addi(s);
    INDArray m2 = b.subi(a.mul(a).divi((double) rows));
    // Rounding can leave a constant channel's M2 a hair below zero.
    INDArray var = Transforms.max(m2.divi((double) rows), 0.0, false);
    INDArray std = Transforms.sqrt(var.add(eps), false).reshape(1, c);
    return new BatchStatistics(mean, var, std, rows);
  }

  /** {@code (x2d - mean) / std} ([rows, C], float64). */
  INDArray normalise(INDArray x2d) {
    return x2d.castTo(DataType.DOUBLE)
        .subRowVector(mean.reshape(1, mean.length()))
        .diviRowVector(std);
  }

  /**
   * dL/dx (float64) for {@code dxHat} = dL/dxHat and {@code xHat} = (x - mean)/std, both [rows, C]
   * float64 on this rank.
   */
  INDArray inputGradient(INDArray dxHat, INDArray xHat, StatsReducer reducer) {
    long c = dxHat.size(1);
    INDArray packed = Nd4j.create(DataType.DOUBLE, 2 * c);
    packed.get(range(0, c)).assign(dxHat.sum(0).reshape(c));
    packed.get(range(c, 2 * c)).assign(dxHat.mul(xHat).sum(0).reshape(c));
    reducer.sumInPlace(packed);
    double m = globalRows;
    INDArray meanDxHat = packed.get(range(0, c)).div(m).reshape(1, c);
    INDArray meanDxHatXHat = packed.get(range(c, 2 * c)).div(m).reshape(1, c);
    return dxHat.subRowVector(meanDxHat).subi(xHat.mulRowVector(meanDxHatXHat)).diviRowVector(std);
  }

  private static INDArrayIndex range(long from, long to) {
    return NDArrayIndex.interval(from, to);
  }
}
