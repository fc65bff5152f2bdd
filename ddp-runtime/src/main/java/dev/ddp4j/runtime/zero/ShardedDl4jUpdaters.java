package dev.ddp4j.runtime.zero;

import org.deeplearning4j.nn.api.Trainable;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.updater.MultiLayerUpdater;
import org.deeplearning4j.nn.updater.graph.ComputationGraphUpdater;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The updaters DdpModel puts into a model under ZeRO-1: DL4J's own updater classes (the model's
 * optimizer calls them where it called the originals), built over no layers so that they allocate
 * no blocks and no state of their own, whose update is {@link ShardedStep}'s. Their state view is
 * null, except while a checkpoint is written: then it is the full state gathered from every rank.
 */
final class ShardedDl4jUpdaters {

  private ShardedDl4jUpdaters() {}

  /** An updater that runs a {@link ShardedStep}. */
  interface Sharded {
    ShardedStep step();
  }

  static final class ForMultiLayer extends MultiLayerUpdater implements Sharded {
    private final transient ShardedStep step;

    ForMultiLayer(MultiLayerNetwork net, ShardedStep step) {
      super(net, null);
      this.step = step;
    }

    @Override
    protected Trainable[] getOrderedLayers() {
      return new Trainable[0]; // called by the base constructor: no blocks, no state
    }

    @Override
    public synchronized void update(
        Gradient gradient, int iteration, int epoch, int batchSize, LayerWorkspaceMgr ws) {
      step.update(
          gradient.gradient(),
          getFlattenedGradientsView(),
          network.params(),
          iteration,
          epoch,
          batchSize,
          isMiniBatch());
    }

    @Override
    public INDArray getStateViewArray() {
      return step.checkpointState();
    }

    @Override
    public ShardedStep step() {
      return step;
    }
  }

  static final class ForGraph extends ComputationGraphUpdater implements Sharded {
    private final transient ShardedStep step;

    ForGraph(ComputationGraph graph, ShardedStep step) {
      super(graph, null);
      this.step = step;
    }

    @Override
    protected Trainable[] getOrderedLayers() {
      return new Trainable[0]; // called by the base constructor: no blocks, no state
    }

    @Override
    public synchronized void update(
        Gradient gradient, int iteration, int epoch, int batchSize, LayerWorkspaceMgr ws) {
      step.update(
          gradient.gradient(),
          getFlattenedGradientsView(),
          network.params(),
          iteration,
          epoch,
          batchSize,
          isMiniBatch());
    }

    @Override
    public INDArray getStateViewArray() {
      return step.checkpointState();
    }

    @Override
    public ShardedStep step() {
      return step;
    }
  }
}
