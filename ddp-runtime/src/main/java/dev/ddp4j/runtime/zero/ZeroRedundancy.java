package dev.ddp4j.runtime.zero;

import dev.ddp4j.ConfigException;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.bucket.BucketPlan;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.model.ModelAdapter;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.updater.BaseMultiLayerUpdater;
import org.deeplearning4j.nn.updater.MultiLayerUpdater;
import org.deeplearning4j.nn.updater.UpdaterBlock;
import org.deeplearning4j.nn.updater.graph.ComputationGraphUpdater;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.factory.Nd4j;

/**
 * ZeRO-1 for DdpModel (PyTorch's ZeroRedundancyOptimizer): the updater state is sharded over the
 * ranks. Each step the gradient buckets are reduce-scattered while backward runs ({@link
 * ShardedComm}), each rank applies DL4J's updater to its shard only ({@link ShardedUpdater}), and
 * the updated shards are all-gathered, so that DL4J's step subtracts the same full update on every
 * rank. A rank holds updater state for about 1/N of the model (Adam: 2/N of the parameter count
 * instead of 2x).
 *
 * <p>Lifecycle, driven by DdpModel: {@link #plan} at wrap (checks the options and the model, no
 * collectives), {@link #hook} and {@link #source} for the bucket engine, {@link #shardUpdater}
 * after rank 0's state was broadcast, {@link #restoreUpdater} at close.
 */
public final class ZeroRedundancy {

  private final ProcessGroup group;
  private final ShardLayout layout;
  private final ShardedComm comm;

  private ZeroRedundancy(ProcessGroup group, ShardLayout layout, ShardedComm comm) {
    this.group = group;
    this.layout = layout;
    this.comm = comm;
  }

  /**
   * Plans ZeRO-1 for {@code adapter}'s model over {@code plan}'s buckets.
   *
   * @param requested the comm hook the options name: only the default all-reduce is accepted
   * @param onDevice whether the gradients are reduced on a GPU (not supported)
   * @throws ConfigException naming the option or layer that cannot be combined with ZeRO-1
   */
  public static ZeroRedundancy plan(
      ProcessGroup group,
      BucketPlan plan,
      ModelAdapter adapter,
      CommHook requested,
      boolean onDevice) {
    if (!requested.name().equals("allreduce")) {
      throw new ConfigException(
          "zeroRedundancy with commHook "
              + requested.name()
              + ": ZeRO-1 reduce-scatters the gradients itself, so no comm hook applies (use the"
              + " default CommHooks.allReduce(), or turn zeroRedundancy off)");
    }
    if (onDevice) {
      throw new ConfigException(
          "zeroRedundancy on GPU memory: ND4J computes on the GPU here, and ZeRO-1 runs on host"
              + " memory only (use ND4J's CPU backend, or turn zeroRedundancy off)");
    }
    for (UpdaterBlock block : dl4jUpdater(adapter.model()).getUpdaterBlocks()) {
      ShardedUpdater.stateMultiple(block);
      for (UpdaterBlock.ParamState p : block.getLayersAndVariablesInBlock()) {
        ShardedUpdater.checkNormalization(p.getLayer());
      }
    }
    ShardLayout layout = new ShardLayout(plan, group.rank(), group.size());
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      return new ZeroRedundancy(
          group, layout, new ShardedComm(group, layout, adapter.gradients().dataType()));
    }
  }

  /** The comm hook the bucket engine's gradient source calls: the buckets' reduce-scatter. */
  public CommHook hook() {
    return comm;
  }

  /**
   * Replaces the model's DL4J updater by one that updates this rank's shard only, with the owned
   * part of the model's current updater state (rank 0's, after the broadcast); the full state is
   * dropped.
   */
  public void shardUpdater(ModelAdapter adapter) {
    Model model = adapter.model();
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      ShardedUpdater shard =
          new ShardedUpdater(dl4jUpdater(model), layout.owned(), adapter.gradients().dataType());
      ShardedStep step = new ShardedStep(group, shard, comm);
      if (model instanceof MultiLayerNetwork net) {
        net.setUpdater(new ShardedDl4jUpdaters.ForMultiLayer(net, step));
      } else {
        ComputationGraph graph = (ComputationGraph) model;
        graph.setUpdater(new ShardedDl4jUpdaters.ForGraph(graph, step));
      }
    }
  }

  /**
   * Puts a plain DL4J updater back, with fresh state: the sharded state lives on the ranks and is
   * not gathered at close (save a checkpoint before close to keep it). Call after the model's own
   * layers are back.
   */
  public void restoreUpdater(ModelAdapter adapter) {
    Model model = adapter.model();
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      if (model instanceof MultiLayerNetwork net) {
        net.setUpdater(new MultiLayerUpdater(net));
      } else {
        ComputationGraph graph = (ComputationGraph) model;
        graph.setUpdater(new ComputationGraphUpdater(graph));
      }
    }
  }

  /**
   * How many updater state elements {@code model} holds on this rank: its shard's under ZeRO-1,
   * else DL4J's full state.
   */
  public static long updaterStateElements(Model model) {
    Updater u = updaterOf(model);
    if (u instanceof ShardedDl4jUpdaters.Sharded s) {
      return s.step().shard().stateLength();
    }
    return u.getStateViewArray() == null ? 0 : u.getStateViewArray().length();
  }

  /**
   * Collective where {@code model} is sharded by ZeRO-1 (every rank must call it): until the
   * returned scope closes, the model's updater shows DL4J's serializer the full state, gathered
   * from every rank. A no-op scope for any other model.
   */
  public static FullState gatherForCheckpoint(Model model) {
    Updater u = updaterOf(model);
    if (u instanceof ShardedDl4jUpdaters.Sharded s) {
      return s.step().gatherForCheckpoint();
    }
    return () -> {};
  }

  /** The scope of {@link #gatherForCheckpoint}: closing it drops the gathered state. */
  public interface FullState extends AutoCloseable {
    @Override
    void close();
  }

  private static Updater updaterOf(Model model) {
    if (model instanceof MultiLayerNetwork net) {
      return net.getUpdater();
    }
    return ((ComputationGraph) model).getUpdater();
  }

  private static BaseMultiLayerUpdater<?> dl4jUpdater(Model model) {
    Updater u = updaterOf(model);
    if (!(u instanceof BaseMultiLayerUpdater<?> b) || u instanceof ShardedDl4jUpdaters.Sharded) {
      throw new ConfigException(
          "zeroRedundancy: the model's updater is a "
              + u.getClass().getName()
              + " (expected: DL4J's MultiLayerUpdater or ComputationGraphUpdater, as init()"
              + " creates; wrap the model in one DdpModel at a time)");
    }
    return b;
  }
}
