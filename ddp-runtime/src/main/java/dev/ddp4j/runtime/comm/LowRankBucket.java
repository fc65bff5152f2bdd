package dev.ddp4j.runtime.comm;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Work;
import dev.ddp4j.runtime.bucket.ParamLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * {@link PowerSgd}'s state and step for one bucket: which parameters are compressed, the factors P
 * and Q of all of them in one flat array each (one all-reduce each), the uncompressed parameters
 * gathered into a third, and this rank's residual per compressed matrix.
 */
final class LowRankBucket {

  // A matrix is compressed only if its factors are at most half its size, as PyTorch's default.
  private static final int MIN_COMPRESSION = 2;

  private final int rank;
  private final int index;
  private final long length;
  private final List<ParamLayout> matrices = new ArrayList<>();
  private final List<ParamLayout> plain = new ArrayList<>();
  private final INDArray pFlat;
  private final INDArray qFlat;
  private final INDArray plainFlat;
  private final INDArray[] p;
  private final INDArray[] q;
  private final INDArray[] plainViews;
  // Per compressed matrix, what this rank still owes the sum (n x m, the matrix's own order).
  private final INDArray[] residual;
  private boolean qSeeded;

  LowRankBucket(GradBucket bucket, int rank) {
    this.rank = rank;
    this.index = bucket.index();
    this.length = bucket.length();
    for (ParamLayout param : bucket.parameters()) {
      long n = rows(param);
      long m = param.length() / n;
      boolean worth = param.rank() >= 2 && (n + m) * rank * MIN_COMPRESSION < n * m;
      (worth ? matrices : plain).add(param);
    }
    var type = bucket.buffer().dataType();
    long pLength = 0;
    long qLength = 0;
    for (ParamLayout param : matrices) {
      pLength += rows(param) * rank;
      qLength += param.length() / rows(param) * rank;
    }
    long plainLength = plain.stream().mapToLong(ParamLayout::length).sum();
    pFlat = Nd4j.create(type, Math.max(pLength, 1));
    qFlat = Nd4j.create(type, Math.max(qLength, 1));
    plainFlat = Nd4j.create(type, Math.max(plainLength, 1));
    p = new INDArray[matrices.size()];
    q = new INDArray[matrices.size()];
    residual = new INDArray[matrices.size()];
    long pAt = 0;
    long qAt = 0;
    for (int i = 0; i < matrices.size(); i++) {
      ParamLayout param = matrices.get(i);
      long n = rows(param);
      long m = param.length() / n;
      p[i] = slice(pFlat, pAt, n * rank).reshape('c', n, rank);
      q[i] = slice(qFlat, qAt, m * rank).reshape('c', m, rank);
      residual[i] = Nd4j.zeros(type, n, m);
      pAt += n * rank;
      qAt += m * rank;
    }
    plainViews = new INDArray[plain.size()];
    long at = 0;
    for (int j = 0; j < plain.size(); j++) {
      plainViews[j] = slice(plainFlat, at, plain.get(j).length());
      at += plain.get(j).length();
    }
  }

  private static long rows(ParamLayout param) {
    return param.shape()[0];
  }

  private static INDArray slice(INDArray flat, long from, long n) {
    return flat.get(NDArrayIndex.interval(from, from + n));
  }

  /** {@code param}'s gradient in {@code bucket} as an n x m matrix (a view). */
  private static INDArray matrix(GradBucket bucket, ParamLayout param) {
    long n = rows(param);
    return bucket.gradient(param).reshape(param.order(), n, param.length() / n);
  }

  CommHook.Pending start(ProcessGroup group, GradBucket bucket) {
    if (bucket.length() != length) {
      throw new IllegalStateException(
          "PowerSGD: bucket "
              + index
              + " has "
              + bucket.length()
              + " elements but had "
              + length
              + " when its state was made (expected: one CommHooks.powerSgd(...) per DdpModel)");
    }
    if (matrices.isEmpty()) {
      return CommHook.Pending.of(bucket.allReduce(bucket.buffer()));
    }
    for (int j = 0; j < plain.size(); j++) {
      plainViews[j].assign(bucket.gradient(plain.get(j)).reshape(plainViews[j].length()));
    }
    Work plainWork = plain.isEmpty() ? null : bucket.allReduce(plainFlat);
    if (!qSeeded) {
      for (int i = 0; i < q.length; i++) {
        seed(i);
      }
      qSeeded = true;
    }
    INDArray[] local = new INDArray[matrices.size()];
    for (int i = 0; i < local.length; i++) {
      local[i] = matrix(bucket, matrices.get(i)).addi(residual[i]);
      p[i].assign(local[i].mmul(q[i]));
    }
    Work pWork = bucket.allReduce(pFlat);
    return CommHook.Pending.of(pWork, () -> finish(group, bucket, plainWork, local));
  }

  private void finish(ProcessGroup group, GradBucket bucket, Work plainWork, INDArray[] local) {
    if (plainWork != null) {
      plainWork.await(group.timeout()); // completed before pWork: throws its error, if any
      for (int j = 0; j < plain.size(); j++) {
        ParamLayout param = plain.get(j);
        bucket.gradient(param).assign(plainViews[j].reshape(param.order(), param.shape()));
      }
    }
    for (int i = 0; i < local.length; i++) {
      orthonormalColumns(p[i]);
      q[i].assign(local[i].transpose().mmul(p[i]));
    }
    bucket.allReduce(qFlat).await(group.timeout());
    int ranks = group.size();
    for (int i = 0; i < local.length; i++) {
      INDArray sum = p[i].mmul(q[i].transpose());
      residual[i].assign(local[i]).subi(sum.div(ranks));
      local[i].assign(sum);
    }
    // Warm start: next step begins from the mean Q, which keeps its scale that of one rank's.
    qFlat.divi(ranks);
    for (int i = 0; i < q.length; i++) {
      if (q[i].norm2Number().doubleValue() == 0) {
        seed(i); // an all-zero gradient left Q at zero, where it would stay: start afresh
      }
    }
  }

  /** Q of matrix {@code i} at random, the same on every rank, with orthonormal columns. */
  private void seed(int i) {
    Random random = new Random(31L * index + i);
    double[] values = new double[(int) q[i].length()];
    for (int k = 0; k < values.length; k++) {
      values[k] = random.nextGaussian();
    }
    q[i].assign(Nd4j.createFromArray(values).reshape(q[i].shape()).castTo(q[i].dataType()));
    orthonormalColumns(q[i]);
  }

  /** Gram-Schmidt in place; a column that is (numerically) zero stays zero. */
  private static void orthonormalColumns(INDArray a) {
    int cols = (int) a.columns();
    for (int c = 0; c < cols; c++) {
      INDArray col = a.getColumn(c);
      double norm = col.norm2Number().doubleValue();
      if (norm > 0) {
        col.divi(norm);
      }
      for (int k = c + 1; k < cols; k++) {
        INDArray next = a.getColumn(k);
        next.subi(col.mul(col.mul(next).sumNumber().doubleValue()));
      }
    }
  }

  float[] residual() {
    return residual.length == 0
        ? new float[0]
        : Nd4j.toFlattened('c', java.util.Arrays.asList(residual)).toFloatVector();
  }
}
