package dev.ddp4j.runtime.hook;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Wraps one hidden layer so that DdpModel hears when its backward has finished (DL4J has no
 * per-layer backward hook): everything else is delegated unchanged. Not for output layers, frozen
 * layers, or recurrent layers under truncated BPTT (DdpModel leaves those unwrapped).
 */
public final class BackwardHookLayer extends BaseWrapperLayer {
  private static final long serialVersionUID = 1L;

  /** Told when a layer's forward or backward starts and ends. */
  public interface Listener {
    void forwardDone(int layer, long startNs);

    void backwardDone(int layer, long startNs);
  }

  private final int layerIndex;
  private final transient Listener listener;

  public BackwardHookLayer(Layer underlying, int layerIndex, Listener listener) {
    super(underlying);
    this.layerIndex = layerIndex;
    this.listener = listener;
  }

  @Override
  public Pair<Gradient, INDArray> backpropGradient(
      INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
    long t0 = System.nanoTime();
    Pair<Gradient, INDArray> out = underlying.backpropGradient(epsilon, workspaceMgr);
    listener.backwardDone(layerIndex, t0);
    return out;
  }

  @Override
  public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
    long t0 = System.nanoTime();
    INDArray out = underlying.activate(training, workspaceMgr);
    if (training) {
      listener.forwardDone(layerIndex, t0);
    }
    return out;
  }

  @Override
  public INDArray activate(INDArray input, boolean training, LayerWorkspaceMgr workspaceMgr) {
    long t0 = System.nanoTime();
    INDArray out = underlying.activate(input, training, workspaceMgr);
    if (training) {
      listener.forwardDone(layerIndex, t0);
    }
    return out;
  }
}
