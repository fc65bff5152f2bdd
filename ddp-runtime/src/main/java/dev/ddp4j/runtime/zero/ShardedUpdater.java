package dev.ddp4j.runtime.zero;

import dev.ddp4j.ConfigException;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.runtime.comm.NdBuffers;
import dev.ddp4j.runtime.zero.ShardLayout.Interval;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.deeplearning4j.nn.api.Trainable;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.updater.BaseMultiLayerUpdater;
import org.deeplearning4j.nn.updater.UpdaterBlock;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.GradientUpdater;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.regularization.Regularization;

/**
 * DL4J's updater math (divide by the minibatch, element-wise clipping, regularization, the {@link
 * IUpdater}'s rule) on this rank's shard of the flat vector only, with updater state for the shard
 * only. The shard is cut along DL4J's own {@link UpdaterBlock}s (runs of parameters sharing one
 * updater configuration), so a block split by a shard boundary keeps its configuration on both
 * sides; each piece ({@link Segment}) gets its own {@link GradientUpdater} over its own state.
 *
 * <p>State layout: DL4J gives a block of {@code n} elements {@code stateSize(n) = k * n} state
 * elements, {@code k} arrays of {@code n} one after the other (Adam: m then v, k = 2; Nesterovs: v,
 * k = 1; Sgd: k = 0). A segment {@code [s, e)} of the block keeps the same {@code k} arrays of
 * {@code e - s}, sliced out of each of the block's arrays; an updater whose state is not laid out
 * as whole multiples of its length cannot be sharded and is refused.
 *
 * <pre>
 *   DL4J block state:  | m[0 .. n)              | v[0 .. n)              |
 *   segment [s, e):              | m[s..e) |              | v[s..e) |
 *   this rank's state: | m[s..e) | v[s..e) | (next segment) ...
 * </pre>
 *
 * Updaters are element-wise, so the pieces compute what the whole block would.
 */
final class ShardedUpdater {

  /** One (layer, parameter) overlap of a segment: what is divided, clipped and regularized. */
  private record Part(Trainable layer, String param, long start, long end, boolean divide) {}

  /** A piece of one DL4J updater block inside one owned interval. */
  private static final class Segment {
    final int bucket;
    final long start;
    final long end;
    final boolean replicated;
    final boolean skip;
    final IUpdater config;
    final int stateMultiple;
    final long blockStart;
    final long blockLength;
    final long blockStateStart;
    final long stateOffset;
    final List<Part> parts;
    GradientUpdater<?> updater;
    INDArray gradient;
    INDArray[] partGradients;
    INDArray[] partParams;

    Segment(
        int bucket,
        long start,
        long end,
        boolean replicated,
        UpdaterBlock block,
        int stateMultiple,
        long stateOffset,
        List<Part> parts) {
      this.bucket = bucket;
      this.start = start;
      this.end = end;
      this.replicated = replicated;
      this.skip = block.skipDueToPretrainConfig(false);
      this.config = block.getGradientUpdater().getConfig();
      this.stateMultiple = stateMultiple;
      this.blockStart = block.getParamOffsetStart();
      this.blockLength = block.getParamOffsetEnd() - (long) block.getParamOffsetStart();
      this.blockStateStart = block.getUpdaterViewOffsetStart();
      this.stateOffset = stateOffset;
      this.parts = parts;
    }

    long length() {
      return end - start;
    }

    long stateLength() {
      return stateMultiple * length();
    }
  }

  private final List<Segment> segments = new ArrayList<>();
  private final INDArray state;
  private final long fullStateLength;
  private final DataType type;
  private INDArray gradientSeen;
  private INDArray paramsSeen;

  /**
   * Shards {@code dl4j} (the model's updater, with rank 0's state after the broadcast) over {@code
   * owned}: copies the owned part of its state, so training continues where the full updater was.
   */
  ShardedUpdater(BaseMultiLayerUpdater<?> dl4j, List<Interval> owned, DataType type) {
    this.type = type;
    INDArray full = dl4j.getStateViewArray();
    this.fullStateLength = full == null ? 0 : full.length();
    long stateSoFar = 0;
    for (Interval iv : owned) {
      for (UpdaterBlock block : dl4j.getUpdaterBlocks()) {
        long s = Math.max(iv.start(), block.getParamOffsetStart());
        long e = Math.min(iv.end(), block.getParamOffsetEnd());
        if (s >= e) {
          continue;
        }
        int k = stateMultiple(block);
        List<Part> parts = new ArrayList<>();
        for (UpdaterBlock.ParamState p : block.getLayersAndVariablesInBlock()) {
          long ps = Math.max(s, p.getParamOffsetStart());
          long pe = Math.min(e, p.getParamOffsetEnd());
          if (ps < pe) {
            parts.add(
                new Part(
                    p.getLayer(),
                    p.getParamName(),
                    ps,
                    pe,
                    p.getLayer().updaterDivideByMinibatch(p.getParamName())));
          }
        }
        segments.add(new Segment(iv.bucket(), s, e, iv.replicated(), block, k, stateSoFar, parts));
        stateSoFar += k * (e - s);
      }
    }
    this.state = stateSoFar == 0 ? null : Nd4j.create(type, stateSoFar);
    for (Segment seg : segments) {
      INDArray view = null;
      if (seg.stateLength() > 0) {
        view =
            state.get(NDArrayIndex.interval(seg.stateOffset, seg.stateOffset + seg.stateLength()));
        for (int j = 0; j < seg.stateMultiple; j++) {
          view.get(NDArrayIndex.interval(j * seg.length(), (j + 1) * seg.length()))
              .assign(
                  full.get(
                      NDArrayIndex.interval(
                          fullOffset(seg, j), fullOffset(seg, j) + seg.length())));
        }
      }
      seg.updater = seg.config.instantiate(view, false);
    }
  }

  /** Where segment {@code seg}'s state array {@code j} starts in DL4J's full state. */
  private static long fullOffset(Segment seg, int j) {
    return seg.blockStateStart + j * seg.blockLength + (seg.start - seg.blockStart);
  }

  /**
   * {@code k} of a block whose state is {@code k} arrays of its length.
   *
   * @throws ConfigException if the block's updater keeps state in another layout
   */
  static int stateMultiple(UpdaterBlock block) {
    long n = block.getParamOffsetEnd() - (long) block.getParamOffsetStart();
    long stateLength = block.getUpdaterViewOffsetEnd() - (long) block.getUpdaterViewOffsetStart();
    IUpdater config = block.getGradientUpdater().getConfig();
    long k = n == 0 ? 0 : stateLength / n;
    if (k * n != stateLength || config.stateSize(1) != k || config.stateSize(7) != 7 * k) {
      UpdaterBlock.ParamState p = block.getLayersAndVariablesInBlock().get(0);
      throw new ConfigException(
          "zeroRedundancy: the updater "
              + config.getClass().getSimpleName()
              + " of layer '"
              + p.getLayer().getConfig().getLayerName()
              + "' keeps "
              + stateLength
              + " state elements for "
              + n
              + " parameters, not a whole multiple of them, so its state cannot be sharded (use a"
              + " DL4J updater such as Adam, Nesterovs or Sgd, or turn zeroRedundancy off)");
    }
    return (int) k;
  }

  /**
   * Refuses gradient normalization that needs a whole layer's gradient (its norm): a shard holds
   * only part of a layer.
   */
  static void checkNormalization(Trainable layer) {
    GradientNormalization g = layer.getConfig().getGradientNormalization();
    if (g != null
        && g != GradientNormalization.None
        && g != GradientNormalization.ClipElementWiseAbsoluteValue) {
      throw new ConfigException(
          "zeroRedundancy: layer '"
              + layer.getConfig().getLayerName()
              + "' uses GradientNormalization."
              + g
              + ", which needs the whole layer's gradient norm, but ZeRO-1 updates each layer in"
              + " shards (use None or ClipElementWiseAbsoluteValue, or turn zeroRedundancy off)");
    }
  }

  /** Updater state elements this rank holds. */
  long stateLength() {
    return state == null ? 0 : state.length();
  }

  /**
   * Turns this rank's shard of {@code gradient} (the flat gradient, summed over ranks and weighted
   * by DdpModel) into the update DL4J's step subtracts, as DL4J's updater would, bucket by bucket:
   * {@code bucketDone} hears each bucket once its part of the shard is updated (so its all-gather
   * can start while the next bucket is updated). The rest of the flat gradient is left alone. Call
   * outside workspaces.
   */
  void apply(
      INDArray gradient,
      INDArray params,
      int iteration,
      int epoch,
      int batchSize,
      boolean divide,
      IntConsumer bucketDone) {
    bind(gradient, params);
    // Every step below is element-wise, so DL4J's order (divide all, clip all, then each block's
    // regularization and updater) applies per segment as well.
    for (int k = 0; k < segments.size(); k++) {
      Segment seg = segments.get(k);
      prepare(seg, batchSize, divide);
      if (!seg.skip) { // DL4J skips pretrain-only blocks (a VAE's decoder) in supervised training
        regularize(seg, Regularization.ApplyStep.BEFORE_UPDATER, iteration, epoch);
        seg.updater.applyUpdater(seg.gradient, iteration, epoch);
        regularize(seg, Regularization.ApplyStep.POST_UPDATER, iteration, epoch);
      }
      if (k + 1 == segments.size() || segments.get(k + 1).bucket != seg.bucket) {
        bucketDone.accept(seg.bucket);
      }
    }
  }

  /** Divides by the minibatch (where DL4J does) and clips element-wise (where the layer asks). */
  private static void prepare(Segment seg, int batchSize, boolean divide) {
    for (int i = 0; i < seg.parts.size(); i++) {
      Part p = seg.parts.get(i);
      INDArray g = seg.partGradients[i];
      if (divide && p.divide()) {
        g.divi(batchSize);
      }
      if (p.layer().getConfig().getGradientNormalization()
          == GradientNormalization.ClipElementWiseAbsoluteValue) {
        double t = p.layer().getConfig().getGradientNormalizationThreshold();
        Nd4j.getExecutioner()
            .exec(
                DynamicCustomOp.builder("clipbyvalue")
                    .addInputs(g)
                    .callInplace(true)
                    .addFloatingPointArguments(-t, t)
                    .build());
      }
    }
  }

  private static void regularize(
      Segment seg, Regularization.ApplyStep step, int iteration, int epoch) {
    double lr = seg.config.hasLearningRate() ? seg.config.getLearningRate(iteration, epoch) : 1.0;
    for (int i = 0; i < seg.parts.size(); i++) {
      Part p = seg.parts.get(i);
      List<Regularization> rs = p.layer().getConfig().getRegularizationByParam(p.param());
      if (rs == null) {
        continue;
      }
      for (Regularization r : rs) {
        if (r.applyStep() == step) {
          r.apply(seg.partParams[i], seg.partGradients[i], lr, iteration, epoch);
        }
      }
    }
  }

  /**
   * Points the segments' views at {@code gradient} and {@code params}, when they are new arrays.
   */
  private void bind(INDArray gradient, INDArray params) {
    if (gradient == gradientSeen && params == paramsSeen) {
      return;
    }
    INDArray g = gradient.reshape(gradient.length());
    INDArray w = params.reshape(params.length());
    for (Segment seg : segments) {
      seg.gradient = g.get(NDArrayIndex.interval(seg.start, seg.end));
      seg.partGradients = new INDArray[seg.parts.size()];
      seg.partParams = new INDArray[seg.parts.size()];
      for (int i = 0; i < seg.parts.size(); i++) {
        Part p = seg.parts.get(i);
        seg.partGradients[i] = g.get(NDArrayIndex.interval(p.start(), p.end()));
        seg.partParams[i] = w.get(NDArrayIndex.interval(p.start(), p.end()));
      }
    }
    gradientSeen = gradient;
    paramsSeen = params;
  }

  /**
   * The full updater state in DL4J's layout, assembled from every rank's shard (collective: an
   * all-reduce of the state's size, where each rank contributes its own elements and zeros
   * elsewhere; the replicated tails come from rank 0); null if the updater keeps no state.
   */
  INDArray gatherFullState(ProcessGroup group, Duration timeout) {
    if (fullStateLength == 0) {
      return null;
    }
    INDArray full = Nd4j.zeros(type, fullStateLength);
    for (Segment seg : segments) {
      if (seg.stateLength() == 0 || (seg.replicated && group.rank() != 0)) {
        continue;
      }
      for (int j = 0; j < seg.stateMultiple; j++) {
        long from = seg.stateOffset + j * seg.length();
        full.get(NDArrayIndex.interval(fullOffset(seg, j), fullOffset(seg, j) + seg.length()))
            .assign(state.get(NDArrayIndex.interval(from, from + seg.length())));
      }
    }
    group.allReduce(NdBuffers.host(full), ReduceOp.SUM).await(timeout);
    return full;
  }
}
