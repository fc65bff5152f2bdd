package dev.ddp4j.runtime.model;

import dev.ddp4j.runtime.bucket.ParamLayout;
import dev.ddp4j.runtime.bucket.ParamRange;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reads where a layer's parameters lie in the model's flat buffer from the views DL4J hands out.
 */
final class LayerRanges {

  private LayerRanges() {}

  /**
   * Adds {@code layer}'s whole range, each of its parameters to {@code params}, and, to {@code
   * undivided}, its parameters that skip minibatch division.
   */
  static void add(
      Layer layer,
      int index,
      INDArray flatParams,
      List<ParamRange> ranges,
      List<ParamLayout> params,
      List<ParamRange> undivided) {
    long n = layer.numParams();
    if (n == 0) {
      return;
    }
    String name = "layer " + index + " (" + layer.getClass().getSimpleName() + ")";
    long start = Long.MAX_VALUE;
    for (Map.Entry<String, INDArray> p : layer.paramTable().entrySet()) {
      long offset = offsetIn(p.getValue(), flatParams, name);
      start = Math.min(start, offset);
      INDArray view = p.getValue();
      params.add(new ParamLayout(index, name, p.getKey(), offset, view.shape(), view.ordering()));
      if (!layer.updaterDivideByMinibatch(p.getKey())) {
        undivided.add(
            new ParamRange(index, name + " " + p.getKey(), offset, p.getValue().length()));
      }
    }
    ranges.add(new ParamRange(index, name, start, n));
  }

  private static long offsetIn(INDArray view, INDArray flat, String name) {
    if (view.data().address() != flat.data().address()) {
      throw new IllegalStateException(
          name
              + "'s parameters are not a view of the model's flat parameter buffer; DdpModel needs the model"
              + " initialised with init() and not modified since");
    }
    return view.offset() - flat.offset();
  }
}
