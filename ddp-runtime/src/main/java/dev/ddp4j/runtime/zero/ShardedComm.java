package dev.ddp4j.runtime.zero;

import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.runtime.bucket.Bucket;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.GradBucket;
import dev.ddp4j.runtime.comm.NdBuffers;
import java.time.Duration;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * ZeRO-1's communication of one bucket, in the {@link ShardLayout}: while backward runs, a
 * reduce-scatter of the bucket's chunks (each rank receives the sum of its own chunk) and an
 * all-reduce of its tail, started from the bucket engine as a comm hook would be; after this rank
 * updated its shard, an all-gather of every rank's updated chunk back into the bucket.
 *
 * <p>The bucket's index in the {@link GradBucket} says which chunk layout applies. The
 * reduce-scatter lands in a chunk buffer of this rank (L / N elements per bucket), copied into the
 * gradient's own chunk when the engine finishes the bucket, so DdpModel's weighting and DL4J's step
 * see the usual flat gradient; the same buffer is the all-gather's input.
 */
final class ShardedComm implements CommHook {

  private final ProcessGroup group;
  private final ShardLayout layout;
  private final INDArray[] chunks;
  // Per bucket, views over the bucket array the engine last handed out (rebuilt if it changes).
  private final INDArray[] bucketSeen;
  private final HostBuffer[] mainBuffers;
  private final HostBuffer[] tailBuffers;
  private final HostBuffer[] chunkBuffers;
  private final INDArray[] ownViews;
  private final Work[] gathers;

  ShardedComm(ProcessGroup group, ShardLayout layout, DataType type) {
    this.group = group;
    this.layout = layout;
    List<Bucket> buckets = layout.plan().buckets();
    int n = buckets.size();
    this.chunks = new INDArray[n];
    this.bucketSeen = new INDArray[n];
    this.mainBuffers = new HostBuffer[n];
    this.tailBuffers = new HostBuffer[n];
    this.chunkBuffers = new HostBuffer[n];
    this.ownViews = new INDArray[n];
    this.gathers = new Work[n];
    for (Bucket b : buckets) {
      long c = layout.chunk(b);
      if (c > 0) {
        chunks[b.index()] = Nd4j.create(type, c);
        chunkBuffers[b.index()] = NdBuffers.host(chunks[b.index()]);
      }
    }
  }

  @Override
  public Pending start(ProcessGroup g, GradBucket grad) {
    Bucket b = layout.plan().buckets().get(grad.index());
    INDArray bucket = grad.buffer();
    if (bucket.length() != b.length()) {
      throw new IllegalStateException(
          "ZeRO-1's reduce-scatter was started for bucket "
              + grad.index()
              + " of "
              + bucket.length()
              + " elements, but ZeRO-1 planned "
              + b.length()
              + " (expected: the model's own bucket plan)");
    }
    int i = b.index();
    bindViews(b, bucket);
    Work tail = tailBuffers[i] == null ? null : g.allReduce(tailBuffers[i], ReduceOp.SUM);
    Work main =
        chunks[i] == null ? null : g.reduceScatter(mainBuffers[i], chunkBuffers[i], ReduceOp.SUM);
    // Collectives of one group complete in order: the last one's completion covers both.
    Work last = main != null ? main : tail;
    return new Pending() {
      @Override
      public Work work() {
        return last;
      }

      @Override
      public void finish() {
        if (tail != null && !tail.isSuccess()) {
          tail.await(group.timeout()); // completed: throws its error
        }
        if (chunks[i] != null) {
          ownViews[i].assign(chunks[i]);
        }
      }
    };
  }

  private void bindViews(Bucket b, INDArray bucket) {
    int i = b.index();
    if (bucketSeen[i] == bucket) {
      return;
    }
    long c = layout.chunk(b);
    long main = c * layout.ranks();
    INDArray flat = bucket.reshape(bucket.length());
    mainBuffers[i] = c > 0 ? NdBuffers.host(flat.get(NDArrayIndex.interval(0, main))) : null;
    tailBuffers[i] =
        main < b.length()
            ? NdBuffers.host(flat.get(NDArrayIndex.interval(main, b.length())))
            : null;
    ownViews[i] =
        c > 0 ? flat.get(NDArrayIndex.interval(layout.rank() * c, (layout.rank() + 1) * c)) : null;
    bucketSeen[i] = bucket;
  }

  /**
   * Bucket {@code i}'s chunk holds this rank's update: copies it into the chunk buffer and starts
   * the all-gather of every rank's chunks back into the bucket (nothing for a bucket of fewer
   * elements than ranks: its tail is updated on every rank).
   */
  void startGather(int i) {
    if (chunks[i] == null || gathers[i] != null) {
      return;
    }
    if (bucketSeen[i] == null) {
      throw new IllegalStateException(
          "ZeRO-1: bucket " + i + " was never reduce-scattered before the updater ran");
    }
    chunks[i].assign(ownViews[i]);
    gathers[i] = group.allGather(chunkBuffers[i], mainBuffers[i]);
  }

  /** Starts what {@link #startGather} has not, in bucket order, and waits for every all-gather. */
  void finishGathers(Duration timeout) {
    for (int i = 0; i < gathers.length; i++) {
      startGather(i);
    }
    for (int i = 0; i < gathers.length; i++) {
      if (gathers[i] != null) {
        gathers[i].await(timeout);
        gathers[i] = null;
      }
    }
  }

  @Override
  public String name() {
    return "zero-1 (reduce-scatter, all-gather)";
  }
}
