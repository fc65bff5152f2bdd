package dev.ddp4j.runtime.comm;

import dev.ddp4j.ConfigException;
import dev.ddp4j.ProcessGroup;
import java.util.HashMap;
import java.util.Map;

/**
 * PowerSGD gradient compression (Vogels, Karimireddy and Jaggi, NeurIPS 2019; PyTorch's {@code
 * powerSGD_hook}). Each weight matrix M (n x m) of a bucket is sent as two thin factors instead of
 * n*m elements:
 *
 * <pre>
 *   M += e                          error feedback: add what compression lost last step (per rank)
 *   P  = M Q          all-reduce P  n x r, Q from last step (warm start) or seeded at random
 *   P  = orthonormal columns of P   (Gram-Schmidt, the same on every rank: P is all-reduced)
 *   Q  = M^T P        all-reduce Q  m x r
 *   e  = M - P Q^T / N              M's share of the sum that the approximation missed
 *   M  = P Q^T                      the low-rank sum over ranks, identical on every rank
 * </pre>
 *
 * Biases, other 1-D parameters and matrices too small to gain at least 2x ({@code (n + m) r * 2 >=
 * n m}) are all-reduced uncompressed, in one message per bucket. Before step {@code startStep}
 * every bucket is plainly all-reduced (PyTorch's {@code start_powerSGD_iter}: compression is kinder
 * once the gradients have settled). Parameters of more than two dimensions are viewed as {@code
 * shape[0] x (the rest)}.
 *
 * <p>The result is built only from all-reduced P and Q, so every rank applies the same gradient.
 * The state (Q, the residual, per bucket) lives in this object: one instance per model.
 */
public final class PowerSgd implements CommHook {

  /** The rank {@code DDP4J_COMM_HOOK=powersgd} uses unless {@code DDP4J_POWERSGD_RANK} says. */
  public static final int DEFAULT_RANK = 1;

  /**
   * The first compressed step unless {@code DDP4J_POWERSGD_START_STEP} says (PyTorch's default).
   */
  public static final long DEFAULT_START_STEP = 1000;

  private final int rank;
  private final long startStep;
  private final Map<Integer, LowRankBucket> buckets = new HashMap<>();

  PowerSgd(int rank, long startStep) {
    if (rank < 1) {
      throw new ConfigException(
          "PowerSGD rank " + rank + " (expected: >= 1, e.g. 1 to 4; DDP4J_POWERSGD_RANK)");
    }
    if (startStep < 0) {
      throw new ConfigException(
          "PowerSGD start step "
              + startStep
              + " (expected: >= 0, the first step that compresses; DDP4J_POWERSGD_START_STEP)");
    }
    this.rank = rank;
    this.startStep = startStep;
  }

  /** Columns of the factors P and Q. */
  public int rank() {
    return rank;
  }

  /** The first step that compresses; earlier steps all-reduce plainly. */
  public long startStep() {
    return startStep;
  }

  @Override
  public Pending start(ProcessGroup group, GradBucket bucket) {
    if (bucket.step() < startStep) {
      return Pending.of(bucket.allReduce(bucket.buffer()));
    }
    LowRankBucket state =
        buckets.computeIfAbsent(bucket.index(), i -> new LowRankBucket(bucket, rank));
    return state.start(group, bucket);
  }

  /**
   * This rank's residual of bucket {@code index}'s compressed matrices (what compression has not
   * sent yet, to be added next step), concatenated; empty before the bucket was first compressed.
   */
  public float[] residual(int index) {
    LowRankBucket state = buckets.get(index);
    return state == null ? new float[0] : state.residual();
  }

  @Override
  public String name() {
    return "powersgd";
  }

  @Override
  public String toString() {
    return "powersgd (rank " + rank + ", from step " + startStep + ")";
  }
}
