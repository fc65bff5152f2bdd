package dev.ddp4j.runtime.model;

import dev.ddp4j.runtime.hook.BackwardHookLayer;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.impl.LayerVertex;
import org.deeplearning4j.nn.updater.graph.ComputationGraphUpdater;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;

/**
 * {@link ModelAdapter} for ComputationGraph. Layers are numbered by topological position: backward
 * visits vertices in reverse topological order, so when position {@code t} is done, every position
 * above it is too.
 */
public final class GraphAdapter extends FlatModelAdapter<ComputationGraph> {

  private final ComputationGraph graph;
  private final int[] order;
  private final Layer[] originals; // by topological position; null where the vertex has no layer

  public GraphAdapter(ComputationGraph graph) {
    super(graph, ComputationGraph.class);
    this.graph = graph;
    graph.getUpdater(); // create the updater over the unwrapped layers, before any wrapping
    this.order = graph.topologicalSortOrder();
    GraphVertex[] vertices = graph.getVertices();
    this.originals = new Layer[order.length];
    for (int t = 0; t < order.length; t++) {
      GraphVertex v = vertices[order[t]];
      if (v.hasLayer()) {
        originals[t] = v.getLayer();
        LayerRanges.add(originals[t], t, graph.params(), ranges, params, undivided);
      }
    }
  }

  @Override
  Updater updater() {
    return graph.getUpdater();
  }

  @Override
  void installUpdater(INDArray state) {
    graph.setUpdater(new ComputationGraphUpdater(graph, state));
  }

  @Override
  Collection<TrainingListener> listeners() {
    return graph.getListeners();
  }

  @Override
  public List<Layer> layers() {
    return java.util.Arrays.stream(originals).filter(java.util.Objects::nonNull).toList();
  }

  @Override
  public boolean truncatedBptt() {
    return graph.getConfiguration().getBackpropType()
        == org.deeplearning4j.nn.conf.BackpropType.TruncatedBPTT;
  }

  @Override
  public int wrapHiddenLayers(BackwardHookLayer.Listener listener, UnaryOperator<Layer> inner) {
    boolean tbptt = truncatedBptt();
    int wrapped = 0;
    for (int t = 0; t < order.length; t++) {
      if (originals[t] != null && Hookable.canWrap(originals[t], tbptt)) {
        replace(t, new BackwardHookLayer(inner.apply(originals[t]), t, listener));
        wrapped++;
      }
    }
    return wrapped;
  }

  @Override
  public void unwrapHiddenLayers() {
    for (int t = 0; t < order.length; t++) {
      if (originals[t] != null) {
        replace(t, originals[t]);
      }
    }
  }

  private void replace(int t, Layer layer) {
    GraphVertex v = graph.getVertices()[order[t]];
    Layer current = v.getLayer();
    ((LayerVertex) v).setLayer(layer);
    Layer[] layers = graph.getLayers();
    for (int i = 0; i < layers.length; i++) {
      if (layers[i] == current) {
        layers[i] = layer;
      }
    }
  }

  @Override
  public void fit(DataSet data) {
    graph.fit(data);
  }

  @Override
  public void computeGradient(DataSet data) {
    graph.setInputs(data.getFeatures());
    graph.setLabels(data.getLabels());
    graph.setLayerMaskArrays(
        data.getFeaturesMaskArray() == null ? null : new INDArray[] {data.getFeaturesMaskArray()},
        data.getLabelsMaskArray() == null ? null : new INDArray[] {data.getLabelsMaskArray()});
    graph.computeGradientAndScore();
  }

  @Override
  public void epochEnd() {
    Listeners.epochEnd(graph, listeners());
    graph.incrementEpochCount();
  }

  @Override
  public int iterationCount() {
    return graph.getIterationCount();
  }

  @Override
  public int epochCount() {
    return graph.getEpochCount();
  }

  @Override
  public void setCounts(int iterations, int epochs) {
    graph.getConfiguration().setIterationCount(iterations);
    graph.getConfiguration().setEpochCount(epochs);
  }
}
