package dev.ddp4j.runtime.model;

import dev.ddp4j.runtime.hook.BackwardHookLayer;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.updater.MultiLayerUpdater;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;

/**
 * {@link ModelAdapter} for MultiLayerNetwork: layers in order, layer 0 first in the flat buffers.
 */
public final class MultiLayerAdapter extends FlatModelAdapter<MultiLayerNetwork> {

  private final MultiLayerNetwork net;
  private final Layer[] originals;

  public MultiLayerAdapter(MultiLayerNetwork net) {
    super(net, MultiLayerNetwork.class);
    this.net = net;
    net.getUpdater(); // create the updater over the unwrapped layers, before any wrapping
    this.originals = net.getLayers().clone();
    for (int i = 0; i < originals.length; i++) {
      LayerRanges.add(originals[i], i, net.params(), ranges, params, undivided);
    }
  }

  @Override
  Updater updater() {
    return net.getUpdater();
  }

  @Override
  void installUpdater(INDArray state) {
    net.setUpdater(new MultiLayerUpdater(net, state));
  }

  @Override
  Collection<TrainingListener> listeners() {
    return net.getListeners();
  }

  @Override
  public List<Layer> layers() {
    return List.of(originals);
  }

  @Override
  public boolean truncatedBptt() {
    return net.getLayerWiseConfigurations().getBackpropType()
        == org.deeplearning4j.nn.conf.BackpropType.TruncatedBPTT;
  }

  @Override
  public int wrapHiddenLayers(BackwardHookLayer.Listener listener, UnaryOperator<Layer> inner) {
    Layer[] layers = net.getLayers();
    boolean tbptt = truncatedBptt();
    int wrapped = 0;
    for (int i = 0; i < layers.length; i++) {
      if (Hookable.canWrap(originals[i], tbptt)) {
        layers[i] = new BackwardHookLayer(inner.apply(originals[i]), i, listener);
        wrapped++;
      }
    }
    net.setLayers(layers);
    return wrapped;
  }

  @Override
  public void unwrapHiddenLayers() {
    net.setLayers(originals.clone());
  }

  @Override
  public void fit(DataSet data) {
    net.fit(data);
  }

  @Override
  public void computeGradient(DataSet data) {
    net.setInput(data.getFeatures());
    net.setLabels(data.getLabels());
    net.setLayerMaskArrays(data.getFeaturesMaskArray(), data.getLabelsMaskArray());
    net.computeGradientAndScore();
  }

  @Override
  public void epochEnd() {
    Listeners.epochEnd(net, listeners());
    net.incrementEpochCount();
  }

  @Override
  public int iterationCount() {
    return net.getIterationCount();
  }

  @Override
  public int epochCount() {
    return net.getEpochCount();
  }

  @Override
  public void setCounts(int iterations, int epochs) {
    net.getLayerWiseConfigurations().setIterationCount(iterations);
    net.getLayerWiseConfigurations().setEpochCount(epochs);
  }
}
