package dev.ddp4j.runtime.bucket;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Work;
import dev.ddp4j.runtime.comm.ArrayAllReduce;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.GradBucket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The {@link GradientSource} of a DL4J model: its flat gradient as one ND4J array, each bucket an
 * interval view of it handed to the {@link CommHook} as a {@link GradBucket} (host memory on ND4J's
 * CPU backend, device memory on its CUDA backend), with the one {@link ArrayAllReduce} that fits
 * that memory, so a hook never stages anything itself. The updater reads the gradient after the
 * engine's wait, so there is nothing to order on a GPU. With gradient accumulation ({@code noSync}
 * steps before) the accumulated gradient is added into each bucket just before it is sent. ND4J
 * calls run outside workspaces, as the hooks require.
 */
public final class Nd4jGradients implements GradientSource {

  private final ProcessGroup group;
  private final BucketPlan plan;
  private final CommHook hook;
  private final ArrayAllReduce allReduce;
  // Per bucket, the parameters it holds (from the model's layout, the one the plan was cut from).
  private final List<List<ParamLayout>> bucketParams = new ArrayList<>();
  // Steps whose last bucket was started: the step number hooks see.
  private long steps;
  private final INDArray[] bucketViews;
  private final INDArray[] accumulatedViews;
  // The arrays the cached bucket views slice; views are rebuilt only when the model hands out new
  // arrays.
  private INDArray gradientSeen;
  private INDArray accumulatedSeen;
  private boolean addAccumulated;
  // A replayed step under join: each bucket is zeroed before it is sent, so this rank contributes
  // nothing but still takes part in every collective.
  private boolean zeroBeforeSend;

  /**
   * @param params every parameter of the model, in the flat layout {@code plan} was cut from
   * @param allReduce how hooks sum arrays in the gradient's memory
   */
  public Nd4jGradients(
      ProcessGroup group,
      BucketPlan plan,
      List<ParamLayout> params,
      CommHook hook,
      ArrayAllReduce allReduce) {
    this.group = group;
    this.plan = plan;
    this.hook = hook;
    this.allReduce = allReduce;
    for (Bucket b : plan.buckets()) {
      bucketParams.add(
          params.stream()
              .filter(p -> p.offset() >= b.offset() && p.offset() < b.end())
              .sorted(Comparator.comparingLong(ParamLayout::offset))
              .toList());
    }
    int n = plan.buckets().size();
    this.bucketViews = new INDArray[n];
    this.accumulatedViews = new INDArray[n];
  }

  @Override
  public BucketPlan plan() {
    return plan;
  }

  /**
   * Points the next step's buckets at {@code gradient} (the model's flat gradient view), adding
   * {@code accumulated} (or nothing, if null) into each bucket before it is sent. Call before the
   * engine's {@code beginStep}.
   */
  public void bind(INDArray gradient, INDArray accumulated) {
    if (gradient.length() != plan.totalLength()) {
      throw new IllegalStateException(
          "the model's gradient has "
              + gradient.length()
              + " elements but the buckets cover "
              + plan.totalLength());
    }
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      if (gradient != gradientSeen) {
        slice(gradient, bucketViews);
        gradientSeen = gradient;
      }
      if (accumulated != null && accumulated != accumulatedSeen) {
        slice(accumulated, accumulatedViews);
        accumulatedSeen = accumulated;
      }
    }
    addAccumulated = accumulated != null;
  }

  /**
   * Whether the next steps send zeros instead of backward's gradient (plus any accumulated one):
   * what a rank that ran out of data sends while it replays steps under join.
   */
  public void zeroBeforeSend(boolean on) {
    zeroBeforeSend = on;
  }

  private void slice(INDArray flat, INDArray[] views) {
    INDArray vector = flat.reshape(flat.length());
    if (vector.data().address() != flat.data().address()) {
      // A copy would be reduced instead of the model's gradient; DL4J's flat views are contiguous,
      // so this only fails if the model's gradient buffer is not one flat array.
      throw new IllegalStateException(
          "the model's gradient view is not one contiguous flat buffer");
    }
    for (Bucket b : plan.buckets()) {
      views[b.index()] = vector.get(NDArrayIndex.interval(b.offset(), b.end()));
    }
  }

  @Override
  public CommHook.Pending start(Bucket bucket) {
    int b = bucket.index();
    if (bucketViews[b] == null) {
      throw new IllegalStateException("bucket " + b + " started before bind(gradient, ...)");
    }
    CommHook.Pending p;
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      if (zeroBeforeSend) {
        bucketViews[b].assign(0);
      }
      if (addAccumulated) {
        bucketViews[b].addi(accumulatedViews[b]);
        accumulatedViews[b].assign(0);
      }
      boolean last = b == plan.buckets().size() - 1;
      p =
          hook.start(
              group,
              new GradBucket(
                  b, last, steps, bucketViews[b], bucket.offset(), bucketParams.get(b), allReduce));
      if (last) {
        steps++;
      }
    }
    return new CommHook.Pending() {
      @Override
      public Work work() {
        return p.work();
      }

      @Override
      public void finish() {
        try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
          p.finish();
        }
      }
    };
  }

  @Override
  public void joinConsumer() {}

  @Override
  public boolean timedOnHost() {
    return true;
  }

  @Override
  public void close() {}
}
