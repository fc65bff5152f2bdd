package dev.ddp4j.runtime.model;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.api.layers.RecurrentLayer;
import org.deeplearning4j.nn.layers.FrozenLayer;
import org.deeplearning4j.nn.layers.FrozenLayerWithBackprop;

/**
 * Which layers may be wrapped for a backward hook. DL4J checks some layer kinds with {@code
 * instanceof} (output layers, frozen layers, recurrent layers under truncated BPTT), so those stay
 * as they are; layers without parameters have no gradient to report.
 */
final class Hookable {

  private Hookable() {}

  static boolean canWrap(Layer layer, boolean truncatedBptt) {
    return layer.numParams() > 0
        && !(layer instanceof IOutputLayer)
        && !(layer instanceof FrozenLayer)
        && !(layer instanceof FrozenLayerWithBackprop)
        && !(truncatedBptt && layer instanceof RecurrentLayer);
  }
}
