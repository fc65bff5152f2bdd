package dev.ddp4j.runtime.model;

import dev.ddp4j.runtime.bucket.ParamLayout;
import dev.ddp4j.runtime.bucket.ParamRange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What MultiLayerNetwork and ComputationGraph adapters share: one flat parameter vector, one flat
 * gradient view and one updater state view, and listeners kept in a collection of the model's.
 * Subclasses say where the updater and listeners live and how layers are ordered.
 */
abstract class FlatModelAdapter<M extends Model> implements ModelAdapter {

  protected final M model;
  private final Class<M> modelClass;
  protected final List<ParamRange> ranges = new ArrayList<>();
  protected final List<ParamLayout> params = new ArrayList<>();
  protected final List<ParamRange> undivided = new ArrayList<>();

  FlatModelAdapter(M model, Class<M> modelClass) {
    this.model = model;
    this.modelClass = modelClass;
  }

  /** The model's updater, created on first call. */
  abstract Updater updater();

  /** Gives the model a new updater over {@code state} (after its gradient view moved). */
  abstract void installUpdater(INDArray state);

  /** The model's own listener collection. */
  abstract Collection<TrainingListener> listeners();

  @Override
  public final Model model() {
    return model;
  }

  @Override
  public final INDArray params() {
    return model.params();
  }

  @Override
  public final INDArray gradients() {
    return model.getGradientsViewArray();
  }

  @Override
  public final INDArray updaterState() {
    return updater().getStateViewArray();
  }

  @Override
  public final void moveGradients(INDArray flat) {
    INDArray state = GradientBuffers.copyOfState(updaterState());
    flat.assign(model.getGradientsViewArray());
    GradientBuffers.setFlattenedGradients(modelClass, model, flat);
    model.setBackpropGradientsViewArray(flat);
    installUpdater(state);
  }

  @Override
  public final List<ParamRange> layerRanges() {
    return ranges;
  }

  @Override
  public final List<ParamLayout> paramLayouts() {
    return params;
  }

  @Override
  public final List<ParamRange> undividedRanges() {
    return undivided;
  }

  @Override
  public final void addListenerFirst(TrainingListener listener) {
    Listeners.addFirst(model, listeners(), listener);
  }

  @Override
  public final void removeListener(TrainingListener listener) {
    Listeners.remove(model, listeners(), listener);
  }

  @Override
  public final void epochStart() {
    Listeners.epochStart(model, listeners());
  }
}
