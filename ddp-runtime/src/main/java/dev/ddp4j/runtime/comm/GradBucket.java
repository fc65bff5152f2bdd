package dev.ddp4j.runtime.comm;

import dev.ddp4j.Work;
import dev.ddp4j.runtime.bucket.ParamLayout;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * What a {@link CommHook} is handed for one bucket (PyTorch's {@code GradBucket}): which bucket of
 * the step it is, the bucket's gradient as one flat array, where that array lies in the model's
 * flat gradient, and the parameters it holds, so a hook can view a weight matrix as a matrix. The
 * parameter list comes from the model's own layout ({@code ModelAdapter.paramLayouts()}), the same
 * one the bucket plan was cut from.
 *
 * <p>Hooks communicate through {@link #allReduce}, which works in the memory the bucket lives in
 * (host or device), so one hook serves ND4J's CPU and CUDA backends alike.
 */
public final class GradBucket {

  private final int index;
  private final boolean last;
  private final long step;
  private final INDArray buffer;
  private final long offset;
  private final List<ParamLayout> parameters;
  private final ArrayAllReduce allReduce;

  /**
   * DdpModel builds one per bucket and step; a test or another engine may too.
   *
   * @param index the bucket's position in launch order (0: the last layers)
   * @param last whether this is the step's last bucket
   * @param step synchronised steps before this one since the model was wrapped
   * @param buffer the bucket's gradient: a contiguous array of {@code length} elements
   * @param offset where {@code buffer} starts in the model's flat gradient
   * @param parameters the parameters inside {@code [offset, offset + buffer.length())}, with
   *     offsets in the flat gradient
   * @param allReduce how arrays are summed over the ranks in the bucket's memory
   */
  public GradBucket(
      int index,
      boolean last,
      long step,
      INDArray buffer,
      long offset,
      List<ParamLayout> parameters,
      ArrayAllReduce allReduce) {
    for (ParamLayout p : parameters) {
      if (p.offset() < offset || p.end() > offset + buffer.length()) {
        throw new IllegalArgumentException(
            p
                + " lies outside bucket "
                + index
                + " ["
                + offset
                + ", "
                + (offset + buffer.length())
                + ") (expected: buckets of whole parameters)");
      }
    }
    this.index = index;
    this.last = last;
    this.step = step;
    this.buffer = buffer;
    this.offset = offset;
    this.parameters = List.copyOf(parameters);
    this.allReduce = allReduce;
  }

  /** The bucket's position in launch order, the same on every rank (0: the last layers). */
  public int index() {
    return index;
  }

  /** Whether this is the last bucket of the step: after it, every bucket has been started. */
  public boolean isLast() {
    return last;
  }

  /** The training step: synchronised steps (or truncated BPTT segments) before this one. */
  public long step() {
    return step;
  }

  /**
   * The bucket's gradient, one flat array; the hook must leave in it the sum over all ranks (device
   * memory where ND4J runs on CUDA).
   */
  public INDArray buffer() {
    return buffer;
  }

  /** Where {@link #buffer()} starts in the model's flat gradient (elements). */
  public long offset() {
    return offset;
  }

  /** Elements in the bucket. */
  public long length() {
    return buffer.length();
  }

  /** The parameters in this bucket, by offset, with offsets in the model's flat gradient. */
  public List<ParamLayout> parameters() {
    return parameters;
  }

  /** Where {@code p} starts within {@link #buffer()}. */
  public long offsetInBucket(ParamLayout p) {
    return p.offset() - offset;
  }

  /**
   * {@code p}'s gradient as an array of its own shape and order: a view of {@link #buffer()}, so
   * writing it writes the bucket.
   */
  public INDArray gradient(ParamLayout p) {
    long from = offsetInBucket(p);
    INDArray flat = buffer.reshape(buffer.length());
    return flat.get(NDArrayIndex.interval(from, from + p.length())).reshape(p.order(), p.shape());
  }

  /**
   * Starts summing {@code array} over every rank in place, in the memory this bucket lives in (see
   * {@link ArrayAllReduce#start}).
   */
  public Work allReduce(INDArray array) {
    return allReduce.start(array);
  }

  /** This bucket over another summing route (e.g. one that counts what is sent). */
  public GradBucket withAllReduce(ArrayAllReduce route) {
    return new GradBucket(index, last, step, buffer, offset, parameters, route);
  }

  @Override
  public String toString() {
    return "bucket "
        + index
        + (last ? " (last)" : "")
        + " of step "
        + step
        + ": "
        + buffer.length()
        + " elements at "
        + offset
        + ", "
        + parameters.size()
        + " parameters";
  }
}
