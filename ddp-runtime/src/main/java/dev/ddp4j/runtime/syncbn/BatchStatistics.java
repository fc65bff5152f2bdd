package dev.ddp4j.runtime.syncbn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Batch normalisation maths over the concatenation of every rank's rows, for inputs laid out as
 * {@code [rows, channels]} (a CNN's {@code [N, C, H, W]} becomes {@code [N*H*W, C]}). The formulas
 * are DL4J 1.0.0-M2.1's own (biased batch variance, {@code eps} added before the square root), with
 * each sum over rows replaced by a sum over all ranks' rows:
 *
 * <pre>
 * forward:  all-reduce [ sum x | sum x^2 | rows ]        (2C+1 doubles)
 *           mean = S/M, var = SS/M - mean^2, std = sqrt(var + eps), xHat = (x - mean)/std
 * backward: all-reduce [ sum dxHat | sum dxHat*xMu | sum xMu ]   (3C doubles)
 *           dL/dx = dxHat/std + xMu * dVar * 2/M + dMu/M     (M = rows on all ranks)
 * </pre>
 *
 * The gamma/beta gradients stay local sums: DdpModel all-reduces them like every other gradient.
 */
final class BatchStatistics {

  /** Global batch mean and biased variance (no eps), [C] each, in the input's type. */
  final INDArray mean;

  final INDArray variance;

  /** sqrt(variance + eps), [1, C]. */
  final INDArray std;

  /** Rows on all ranks. */
  final long globalRows;

  private BatchStatistics(INDArray mean, INDArray variance, INDArray std, long globalRows) {
    this.mean = mean;
    this.variance = variance;
    this.std = std;
    this.globalRows = globalRows;
  }

  /** Statistics of {@code x2d} ([rows, C]) over every rank's rows. Call outside workspaces. */
  static BatchStatistics of(INDArray x2d, double eps, StatsReducer reducer) {
    long c = x2d.size(1);
    INDArray packed = Nd4j.create(DataType.DOUBLE, 2 * c + 1);
    packed.get(range(0, c)).assign(x2d.sum(0).castTo(DataType.DOUBLE));
    packed.get(range(c, 2 * c)).assign(x2d.mul(x2d).sum(0).castTo(DataType.DOUBLE));
    packed.putScalar(2 * c, (double) x2d.size(0));
    reducer.sumInPlace(packed);
    long rows = Math.round(packed.getDouble(2 * c));
    INDArray meanD = packed.get(range(0, c)).div(rows);
    INDArray varD = packed.get(range(c, 2 * c)).div(rows).subi(meanD.mul(meanD));
    // E[x^2] - E[x]^2 can dip below zero by rounding where a channel is constant.
    varD = org.nd4j.linalg.ops.transforms.Transforms.max(varD, 0.0, false);
    DataType t = x2d.dataType();
    INDArray std = org.nd4j.linalg.ops.transforms.Transforms.sqrt(varD.add(eps), false);
    return new BatchStatistics(meanD.castTo(t), varD.castTo(t), std.castTo(t).reshape(1, c), rows);
  }

  /** {@code x2d - mean} ([rows, C]). */
  INDArray centre(INDArray x2d) {
    return x2d.subRowVector(mean.reshape(1, mean.length()));
  }

  /** dL/dx for {@code dxHat} = dL/dxHat and {@code xMu} = x - mean, both [rows, C] on this rank. */
  INDArray inputGradient(INDArray dxHat, INDArray xMu, StatsReducer reducer) {
    long c = dxHat.size(1);
    INDArray packed = Nd4j.create(DataType.DOUBLE, 3 * c);
    packed.get(range(0, c)).assign(dxHat.sum(0).castTo(DataType.DOUBLE));
    packed.get(range(c, 2 * c)).assign(dxHat.mul(xMu).sum(0).castTo(DataType.DOUBLE));
    packed.get(range(2 * c, 3 * c)).assign(xMu.sum(0).castTo(DataType.DOUBLE));
    reducer.sumInPlace(packed);
    DataType t = dxHat.dataType();
    INDArray sumDxHat = packed.get(range(0, c)).castTo(t).reshape(1, c);
    INDArray sumDxHatXMu = packed.get(range(c, 2 * c)).castTo(t).reshape(1, c);
    INDArray sumXMu = packed.get(range(2 * c, 3 * c)).castTo(t).reshape(1, c);
    double m = globalRows;
    // dL/dvar = sum(dxHat * xMu) * -1/2 * std^-3
    INDArray dVar =
        sumDxHatXMu.mul(-0.5).muli(org.nd4j.linalg.ops.transforms.Transforms.pow(std, -3.0, true));
    // dL/dmu = -sum(dxHat)/std + sum(xMu) * -2/M * dL/dvar
    INDArray dMu = sumDxHat.div(std).negi().addi(sumXMu.mul(-2.0 / m).muli(dVar));
    return dxHat
        .divRowVector(std)
        .addi(xMu.mulRowVector(dVar.mul(2.0 / m)))
        .addiRowVector(dMu.div(m));
  }

  private static org.nd4j.linalg.indexing.INDArrayIndex range(long from, long to) {
    return org.nd4j.linalg.indexing.NDArrayIndex.interval(from, to);
  }
}
