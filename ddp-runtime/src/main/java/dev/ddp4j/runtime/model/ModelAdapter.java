package dev.ddp4j.runtime.model;

import dev.ddp4j.runtime.bucket.ParamLayout;
import dev.ddp4j.runtime.bucket.ParamRange;
import dev.ddp4j.runtime.hook.BackwardHookLayer;
import java.util.List;
import java.util.function.UnaryOperator;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;

/**
 * What DdpModel needs from a DL4J model, for MultiLayerNetwork ({@link MultiLayerAdapter}) and
 * ComputationGraph ({@link GraphAdapter}): its flat parameter and gradient buffers, where each
 * layer lies in them, a way to hear each hidden layer's backward finish, and the two ways to run a
 * step.
 */
public interface ModelAdapter {

  Model model();

  /** Every layer of the model as the user built it (not the wrappers DdpModel puts in). */
  List<Layer> layers();

  /** Whether fit runs truncated BPTT: several forward/backward/update segments per call. */
  boolean truncatedBptt();

  /** The flat parameter buffer. */
  INDArray params();

  /** The flat gradient buffer (same layout as {@link #params()}), filled in place by backward. */
  INDArray gradients();

  /** The updater's flat state (Adam's moments ...), or null if it has none. */
  INDArray updaterState();

  /**
   * Makes {@code flat} (same length and type as {@link #gradients()}) the model's gradient buffer:
   * copies the gradients into it, points every layer's gradient views at it, and rebuilds the
   * updater over it with its state carried over (DL4J's updater keeps views of the buffer it was
   * built on). Call before the layers are wrapped.
   */
  void moveGradients(INDArray flat);

  /**
   * Each layer with parameters: its index in backward order's reverse and its range in the flat
   * buffers.
   */
  List<ParamRange> layerRanges();

  /**
   * Each parameter of each layer in {@link #layerRanges()}: its range in the flat buffers and its
   * shape (what comm hooks see of a bucket, {@code GradBucket#parameters()}).
   */
  List<ParamLayout> paramLayouts();

  /**
   * Ranges whose updater does not divide by the minibatch size (BatchNorm's running mean and
   * variance: their "gradient" is the update itself); DdpModel averages those over ranks instead of
   * weighting by examples.
   */
  List<ParamRange> undividedRanges();

  /**
   * Wraps every hidden layer that can be wrapped with a {@link BackwardHookLayer}; returns how
   * many.
   */
  default int wrapHiddenLayers(BackwardHookLayer.Listener listener) {
    return wrapHiddenLayers(listener, UnaryOperator.identity());
  }

  /**
   * As {@link #wrapHiddenLayers(BackwardHookLayer.Listener)}, with each wrapped layer first passed
   * through {@code inner} (e.g. synchronised batch norm), inside its backward hook.
   */
  int wrapHiddenLayers(BackwardHookLayer.Listener listener, UnaryOperator<Layer> inner);

  /** Puts the original layers back. */
  void unwrapHiddenLayers();

  /** Adds {@code listener} before the model's other listeners. */
  void addListenerFirst(TrainingListener listener);

  void removeListener(TrainingListener listener);

  /** One optimisation step on {@code data}: forward, backward, listeners, updater. */
  void fit(DataSet data);

  /** Forward and backward only: fills {@link #gradients()}, no update. */
  void computeGradient(DataSet data);

  /**
   * Epoch bookkeeping of a step loop driven from outside: counts, and the listeners' epoch
   * callbacks.
   */
  void epochStart();

  void epochEnd();

  int iterationCount();

  int epochCount();

  void setCounts(int iterations, int epochs);
}
