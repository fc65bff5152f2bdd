package dev.ddp4j.runtime;

import dev.ddp4j.ConfigException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.runtime.bucket.BucketPlan;
import dev.ddp4j.runtime.bucket.GradientReducer;
import dev.ddp4j.runtime.bucket.Nd4jGradients;
import dev.ddp4j.runtime.bucket.ParamRange;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.NdBuffers;
import dev.ddp4j.runtime.hook.BackwardHookLayer;
import dev.ddp4j.runtime.join.StepCounts;
import dev.ddp4j.runtime.model.GraphAdapter;
import dev.ddp4j.runtime.model.ModelAdapter;
import dev.ddp4j.runtime.model.MultiLayerAdapter;
import dev.ddp4j.runtime.model.ParityLimits;
import dev.ddp4j.runtime.nd4jcuda.Nd4jCudaBuild;
import dev.ddp4j.runtime.nd4jcuda.Nd4jDevices;
import dev.ddp4j.runtime.nd4jcuda.NdCollectives;
import dev.ddp4j.runtime.syncbn.SyncBatchNormLayer;
import dev.ddp4j.runtime.trace.Timeline;
import dev.ddp4j.runtime.zero.ZeroRedundancy;
import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Data-parallel training of a DL4J model: N ranks, each fitting its own batches, train exactly like
 * one process fitting all N ranks' batches at once (PyTorch's DistributedDataParallel for DL4J).
 *
 * <p>On creation rank 0's parameters, updater state and iteration/epoch counts are broadcast. Each
 * hidden layer is wrapped so that backward reports when its gradient is final; the flat gradient is
 * cut into buckets (see {@link BucketPlan}) and each bucket's all-reduce starts while backward
 * still runs. Before the updater (DL4J's {@code onGradientCalculation}), DdpModel waits for every
 * bucket and weights the summed gradient so that the updater's division by the local batch size
 * yields the mean over all ranks' examples; uneven batch sizes are exact. Under truncated BPTT each
 * segment of a fit is such a step. Where a model cannot match one process bitwise (dropout, batch
 * norm without sync: {@link dev.ddp4j.runtime.model.ParityLimits}), rank 0 says so once at wrap.
 *
 * <pre>{@code
 * try (ProcessGroup pg = Ddp.init(); DdpModel<MultiLayerNetwork> ddp = DdpModel.wrap(net, pg)) {
 *   ddp.fit(new DistributedDataSetIterator(train, pg.rank(), pg.size(), seed), epochs);
 * }
 * }</pre>
 *
 * Not thread safe: drive it from the training thread. Every rank must make the same calls.
 *
 * @param <M> the wrapped model's type: {@link MultiLayerNetwork} or {@link ComputationGraph}
 */
public final class DdpModel<M extends Model> implements AutoCloseable {

  private final ModelAdapter adapter;
  private final M model;
  private final ProcessGroup group;
  private final DebugLog log;
  private final Timeline timeline;
  private final Nd4jGradients gradients;
  private final GradientReducer reducer;
  private final NdCollectives collectives;
  // ZeRO-1's sharded updater and communication, or null without DdpOptions.zeroRedundancy.
  private final ZeroRedundancy zero;
  private final StepListener listener = new StepListener();
  private INDArray accumulated;
  private long accumulatedExamples;
  private boolean noSync;
  private boolean closed;
  private long stepExamples;
  private final StepCounts counts;
  private final boolean join;
  // Under join, this rank's last batch of its data, copied: what it replays once it ran out.
  private DataSet replayBatch;
  private long replayedSteps;
  private long gradientsDoneNs;
  // Gradient all-reduces completed within the current fit: one per truncated BPTT segment.
  private int syncedSegments;
  // Synchronised gradient all-reduces since wrap (one per step, or per truncated BPTT segment).
  private long synchronisedSteps;
  // Where the model's gradients live while wrapped (ProcessGroup.allocateHost), or null; held so
  // the memory outlives their use of it.
  private HostBuffer sharedBlock;

  private DdpModel(ModelAdapter adapter, M model, ProcessGroup group, DdpOptions options) {
    this.adapter = adapter;
    this.model = model;
    this.group = group;
    this.log = new DebugLog(Settings.process(), group.rank());
    this.join = options.join();
    if (join) {
      refuseWhatJoinCannotReplay(adapter, options);
    }
    this.timeline =
        options.timelinePattern() == null
            ? Timeline.disabled()
            : Timeline.toFile(options.timelinePattern(), group.rank());
    if (options.sharedGradients()) {
      moveGradientsToSharedMemory();
    }
    try {
      int elementBytes = adapter.gradients().data().getElementSize();
      BucketPlan plan =
          BucketPlan.of(
              adapter.layerRanges(),
              elementBytes,
              options.firstBucketBytes(),
              options.bucketCapBytes());
      // Host buffers on ND4J's CPU backend; device buffers on ND4J's stream for ND4J CUDA + cuda
      // group.
      this.collectives = NdCollectives.of(group);
      this.counts = new StepCounts(collectives, group.timeout());
      logHostCompute();
      this.zero =
          options.zeroRedundancy()
              ? ZeroRedundancy.plan(
                  group, plan, adapter, options.commHook(), collectives.onDevice())
              : null;
      CommHook hook = zero != null ? zero.hook() : options.commHook();
      this.gradients = new Nd4jGradients(group, plan, adapter.paramLayouts(), hook, collectives);
      this.reducer = new GradientReducer(gradients, timeline);
      if (group.rank() == 0 && log.enabled(DebugLog.Level.INFO)) {
        log.log(
            DebugLog.Level.INFO,
            String.format(
                "DdpModel: %d ranks, %s; comm hook %s on %s memory%s",
                group.size(),
                plan,
                hook.name(),
                collectives.onDevice() ? "device" : "host",
                sharedBlock != null ? " (gradients in the group's shared memory)" : ""));
      }
      broadcastState();
      if (zero != null) {
        zero.shardUpdater(adapter);
      }
      adapter.wrapHiddenLayers(
          new HookListener(),
          options.syncBatchNorm()
              ? layer -> SyncBatchNormLayer.wrapIfBatchNorm(layer, collectives::sumInPlace)
              : layer -> layer);
      adapter.addListenerFirst(listener);
      logParityLimits(options);
    } catch (RuntimeException | Error e) {
      moveGradientsHome(); // the group may close next and free the shared block
      throw e;
    }
  }

  /**
   * A replayed step must issue exactly the collectives of the steps it shadows: synchronised batch
   * norm sums statistics in forward and truncated BPTT runs one all-reduce per segment, both
   * depending on the other ranks' data, which the replaying rank does not have.
   */
  private static void refuseWhatJoinCannotReplay(ModelAdapter adapter, DdpOptions options) {
    if (options.syncBatchNorm()) {
      throw new ConfigException(
          "join with syncBatchNorm: a rank that ran out of data cannot take part in the others'"
              + " batch statistics (turn one of them off, or shard the data evenly with"
              + " DistributedDataSetIterator)");
    }
    if (adapter.truncatedBptt()) {
      throw new ConfigException(
          "join on a model trained with truncated BPTT: the number of segments per step depends"
              + " on the other ranks' sequences, so a rank that ran out cannot replay them (use"
              + " BackpropType.Standard, or turn join off and shard evenly)");
    }
  }

  /**
   * Says once per job (rank 0, at wrap time) that a GPU group's model computes on the CPU, and why
   * ND4J does not compute on this GPU.
   */
  private void logHostCompute() {
    if (group.rank() != 0
        || collectives.path() != Nd4jDevices.GradientPath.HOST
        || !Nd4jDevices.deviceBackend(group.backend())) {
      return;
    }
    int gpu = group instanceof DeviceGroup d ? d.deviceIndex() : 0;
    Optional<String> why = CudaProbe.unavailableReason();
    Optional<CudaProbe.Gpu> found =
        why.isPresent()
            ? Optional.empty()
            : CudaProbe.gpus().stream().filter(g -> g.ordinal() == gpu).findFirst();
    log.log(
        DebugLog.Level.WARN,
        Nd4jCudaBuild.hostComputeNotice(
            group.backend(), gpu, found, why.orElse("the driver does not list it")));
  }

  /** Where the model computes and how its gradients travel, in words (for a job's first line). */
  public String placement() {
    return collectives.placement();
  }

  /** Says once per job (rank 0, at wrap time) where this model cannot match one process bitwise. */
  private void logParityLimits(DdpOptions options) {
    if (group.size() == 1 || group.rank() != 0) {
      return;
    }
    for (String limit : ParityLimits.of(adapter.layers(), options.syncBatchNorm())) {
      log.log(DebugLog.Level.WARN, "DdpModel: " + limit);
    }
  }

  /**
   * With ND4J on its CPU backend and more than one rank (on any group: a GPU group's host half
   * serves it): the model's gradients move into the group's shared host memory, so bucket
   * all-reduces read peers' gradients in place (where every rank shares one node). Collective, as
   * {@link ProcessGroup#allocateHost} is.
   */
  private void moveGradientsToSharedMemory() {
    if (group.size() == 1 || Nd4jDevices.nd4jOnCuda()) {
      return;
    }
    INDArray g = adapter.gradients();
    if (g.dataType() != org.nd4j.linalg.api.buffer.DataType.FLOAT
        && g.dataType() != org.nd4j.linalg.api.buffer.DataType.DOUBLE) {
      return; // so on every rank (its model has the same type): none makes the collective call
    }
    sharedBlock = group.allocateHost(g.length(), NdBuffers.dataType(g.dataType()));
    adapter.moveGradients(NdBuffers.arrayOver(sharedBlock, g));
  }

  /** Moves the gradients back into ND4J's memory, before the group frees its shared block. */
  private void moveGradientsHome() {
    if (sharedBlock == null) {
      return;
    }
    INDArray g = adapter.gradients();
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      adapter.moveGradients(Nd4j.create(g.dataType(), g.shape(), g.stride(), g.ordering()));
    }
    sharedBlock = null;
  }

  /** Wraps {@code net} (initialised with {@code init()}) with options from the environment. */
  public static DdpModel<MultiLayerNetwork> wrap(MultiLayerNetwork net, ProcessGroup group) {
    return wrap(net, group, DdpOptions.fromEnvironment());
  }

  public static DdpModel<MultiLayerNetwork> wrap(
      MultiLayerNetwork net, ProcessGroup group, DdpOptions options) {
    return new DdpModel<>(new MultiLayerAdapter(net), net, group, options);
  }

  /** Wraps {@code graph} (initialised with {@code init()}) with options from the environment. */
  public static DdpModel<ComputationGraph> wrap(ComputationGraph graph, ProcessGroup group) {
    return wrap(graph, group, DdpOptions.fromEnvironment());
  }

  public static DdpModel<ComputationGraph> wrap(
      ComputationGraph graph, ProcessGroup group, DdpOptions options) {
    return new DdpModel<>(new GraphAdapter(graph), graph, group, options);
  }

  private void broadcastState() {
    collectives.broadcast(adapter.params(), 0);
    INDArray state = adapter.updaterState();
    if (state != null && state.length() > 0) {
      collectives.broadcast(state, 0);
    }
    // Rank 0's counts, as a sum where the other ranks contribute 0.
    boolean root = group.rank() == 0;
    long[] counts =
        collectives.sum(
            new long[] {root ? adapter.iterationCount() : 0, root ? adapter.epochCount() : 0});
    adapter.setCounts((int) counts[0], (int) counts[1]);
  }

  /**
   * One synchronised step on this rank's {@code data} (inside {@link #noSync()}: forward and
   * backward only, the gradient kept for the next synchronised step).
   */
  public void fit(DataSet data) {
    requireOpen();
    if (noSync) {
      accumulate(data);
      return;
    }
    counts.start(data.numExamples() + accumulatedExamples, true, false);
    runStep(data);
  }

  /**
   * One epoch over this rank's {@code iterator}. Without {@link DdpOptions#join()}, when any rank
   * runs out of batches the epoch ends on every rank (the others skip what they have left and say
   * so), so uneven inputs never leave a rank waiting; shard data with {@code
   * DistributedDataSetIterator} to keep ranks even. With join, a rank that ran out replays its last
   * batch with a zero gradient and zero examples in every further step, applying the averaged
   * gradient like the others, until every rank ran out.
   *
   * <p>Each step's counts (its examples over all ranks, who has a next batch) travel in one
   * all-reduce started before the step's compute ({@link StepCounts}); the training thread blocks
   * on counts once per epoch, before the first step.
   */
  public void fit(DataSetIterator iterator) {
    requireOpen();
    if (noSync) {
      throw new IllegalStateException(
          "fit(iterator) inside noSync(): accumulate with fit(DataSet) instead");
    }
    if (!iterator.hasNext() && iterator.resetSupported()) {
      iterator.reset();
    }
    adapter.epochStart();
    boolean has = iterator.hasNext();
    counts.announce(has, join && !has && replayBatch == null);
    if (counts.ranksUnableToReplay() > 0 && counts.ranksWithNext() > 0) {
      throw new IllegalStateException(
          String.format(
              "join: %d of %d ranks have no batch in this epoch and never trained one, so they"
                  + " have nothing to replay the others' steps on (give every rank a batch)",
              counts.ranksUnableToReplay(), group.size()));
    }
    long step = 0;
    while (counts.ranksWithNext() > 0) {
      if (!join && counts.ranksWithNext() < group.size()) {
        if (has) {
          log.log(
              DebugLog.Level.WARN,
              String.format(
                  "%d of %d ranks ran out of data after %d steps of this epoch; this rank skips"
                      + " its remaining batches (shard with DistributedDataSetIterator to keep"
                      + " ranks even, or join with DDP4J_JOIN=1)",
                  group.size() - counts.ranksWithNext(), group.size(), step));
        }
        break;
      }
      DataSet data = has ? iterator.next() : replayBatch;
      boolean hasNext = has && iterator.hasNext();
      if (join && has && !hasNext) {
        replayBatch = data.copy(); // before the iterator may reuse its memory
        log.log(
            DebugLog.Level.INFO,
            String.format(
                "join: out of data after %d steps of this epoch; replaying with zero gradient"
                    + " until every rank is",
                step + 1));
      }
      counts.start(
          has ? data.numExamples() + accumulatedExamples : accumulatedExamples, has, hasNext);
      gradients.zeroBeforeSend(!has);
      try {
        runStep(data);
      } finally {
        gradients.zeroBeforeSend(false);
      }
      if (!has) {
        replayedSteps++;
      }
      has = hasNext;
      step++;
    }
    adapter.epochEnd();
  }

  /** {@code epochs} epochs over {@code iterator}, reset between them. */
  public void fit(DataSetIterator iterator, int epochs) {
    for (int e = 0; e < epochs; e++) {
      if (e > 0 || !iterator.hasNext()) {
        iterator.reset();
      }
      fit(iterator);
    }
  }

  private void runStep(DataSet data) {
    stepExamples = data.numExamples();
    syncedSegments = 0;
    gradients.bind(adapter.gradients(), accumulatedExamples > 0 ? accumulated : null);
    reducer.beginStep();
    long t0 = System.nanoTime();
    adapter.fit(data);
    if (syncedSegments == 0) {
      throw new IllegalStateException(
          "DL4J's fit did not call onGradientCalculation, so gradients were not synchronised; DdpModel supports"
              + " the default StochasticGradientDescent optimisation algorithm");
    }
    reducer.disarm(); // armed for a segment that never came: the last one is behind us
    timeline.record("optimizer step", Timeline.COMPUTE, gradientsDoneNs);
    timeline.record("step", Timeline.COMPUTE, t0);
    accumulatedExamples = 0;
  }

  private void accumulate(DataSet data) {
    adapter.computeGradient(data);
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      INDArray g = adapter.gradients();
      if (accumulated == null) {
        accumulated = g.dup();
      } else if (accumulatedExamples == 0) {
        accumulated.assign(g);
      } else {
        accumulated.addi(g);
      }
    }
    accumulatedExamples += data.numExamples();
  }

  /**
   * Runs after backward, before the updater: waits for all buckets and weights the summed gradient.
   */
  private void onGradientsComputed() {
    reducer.finishStep();
    reducer.awaitStep(group.timeout());
    // DL4J's updater divides by this rank's batch size (a replayed step's too); weight so that it
    // yields the mean over all examples trained.
    double scale = (double) stepExamples / counts.examples();
    // Averaged ranges are averaged over the ranks that trained data (under join: not the replays).
    long trainingRanks = counts.trainingRanks();
    INDArray g = adapter.gradients();
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      if (scale != 1.0) {
        g.muli(scale);
      }
      INDArray flat = g.reshape(g.length());
      for (ParamRange r : adapter.undividedRanges()) {
        flat.get(NDArrayIndex.interval(r.offset(), r.end())).muli(1.0 / trainingRanks / scale);
      }
    }
    gradientsDoneNs = System.nanoTime();
    // Truncated BPTT runs several forward/backward/update segments inside one fit, each calling
    // onGradientCalculation: arm for the next one now, so its backward hooks launch buckets too.
    // noSync() refuses truncated BPTT, so no accumulated gradient is left for later segments.
    syncedSegments++;
    synchronisedSteps++;
    gradients.bind(g, null);
    reducer.beginStep();
  }

  /**
   * Until the returned handle is closed, {@link #fit(DataSet)} only computes and accumulates
   * gradients (no communication, no update); the next synchronised step applies the mean over every
   * accumulated example of every rank, as one big batch would.
   */
  public NoSync noSync() {
    requireOpen();
    if (adapter.truncatedBptt()) {
      // Each segment's update consumes its gradient inside fit: nothing is left to accumulate.
      throw new IllegalStateException(
          "noSync() on a model trained with truncated BPTT: DL4J updates the weights after every"
              + " segment of a fit, so gradients cannot accumulate across fits (accumulate with"
              + " BackpropType.Standard, or fit without noSync)");
    }
    noSync = true;
    return () -> noSync = false;
  }

  /** A scope of {@link #noSync()}. */
  public interface NoSync extends AutoCloseable {
    @Override
    void close();
  }

  /** The wrapped model (its hidden layers are wrapped while this DdpModel is open). */
  public M model() {
    return model;
  }

  /** This rank's output for {@code input} (no communication). */
  public INDArray output(INDArray input) {
    return model instanceof MultiLayerNetwork net
        ? net.output(input)
        : ((ComputationGraph) model).outputSingle(input);
  }

  /** Evaluates on this rank's {@code iterator} (no communication). */
  public Evaluation evaluate(DataSetIterator iterator) {
    return model instanceof MultiLayerNetwork net
        ? net.evaluate(iterator)
        : ((ComputationGraph) model).evaluate(iterator);
  }

  /**
   * What this rank's gradient synchronisation did since wrap: steps, buckets, and how much of the
   * communication backward hid (a snapshot: later steps do not change it).
   */
  public DdpStats stats() {
    BucketPlan plan = reducer.plan();
    return new DdpStats(
        synchronisedSteps,
        plan.buckets().size(),
        plan.totalLength(),
        reducer.commNanos(),
        reducer.exposedNanos(),
        counts.blockingWaits(),
        replayedSteps);
  }

  /** The buckets gradients travel in. */
  public BucketPlan bucketPlan() {
    return reducer.plan();
  }

  /** The group this model synchronises over. */
  public ProcessGroup group() {
    return group;
  }

  /** The timeline of this rank (disabled unless DDP4J_TIMELINE or the options name a file). */
  public Timeline timeline() {
    return timeline;
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("this DdpModel is closed");
    }
  }

  /** Puts the model's own layers back and writes the timeline; the process group stays open. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    adapter.removeListener(listener);
    adapter.unwrapHiddenLayers();
    if (zero != null) {
      zero.restoreUpdater(adapter);
    }
    reducer.close();
    moveGradientsHome();
    try {
      timeline.write();
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the timeline to " + timeline.file(), e);
    }
  }

  private final class StepListener extends BaseTrainingListener {
    @Override
    public void onGradientCalculation(Model model) {
      if (reducer.active()) {
        onGradientsComputed();
      }
    }
  }

  private final class HookListener implements BackwardHookLayer.Listener {
    @Override
    public void forwardDone(int layer, long startNs) {
      if (timeline.enabled()) {
        timeline.record("forward layer " + layer, Timeline.COMPUTE, startNs);
      }
    }

    @Override
    public void backwardDone(int layer, long startNs) {
      if (timeline.enabled()) {
        timeline.record("backward layer " + layer, Timeline.COMPUTE, startNs);
      }
      reducer.layerReady(layer);
    }
  }
}
