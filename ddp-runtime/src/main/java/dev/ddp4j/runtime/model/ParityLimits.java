package dev.ddp4j.runtime.model;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.layers.normalization.BatchNormalization;

/**
 * Where a model's N ranks cannot train bit for bit like one process on the N*B examples, said in
 * one sentence each, for DdpModel to log once at wrap time. Every rank still ends each step with
 * the same parameters; what differs is what those parameters are.
 */
public final class ParityLimits {

  private ParityLimits() {}

  /** The sentences for {@code layers} (every layer of the model, unwrapped); empty if none. */
  public static List<String> of(List<Layer> layers, boolean syncBatchNorm) {
    int dropout = 0;
    int weightNoise = 0;
    int batchNorm = 0;
    for (Layer l : layers) {
      org.deeplearning4j.nn.conf.layers.Layer conf = l.conf() == null ? null : l.conf().getLayer();
      if (conf != null && conf.getIDropout() != null) {
        dropout++;
      }
      if (conf instanceof BaseLayer && ((BaseLayer) conf).getWeightNoise() != null) {
        weightNoise++;
      }
      if (l instanceof BatchNormalization) {
        batchNorm++;
      }
    }
    List<String> out = new ArrayList<>();
    if (dropout > 0) {
      out.add(
          dropout
              + " layer(s) with dropout: ranks draw different masks; results match one process in"
              + " expectation, not bitwise");
    }
    if (weightNoise > 0) {
      out.add(
          weightNoise
              + " layer(s) with weight noise: ranks draw different noise; results match one process"
              + " in expectation, not bitwise");
    }
    if (batchNorm > 0 && !syncBatchNorm) {
      out.add(
          batchNorm
              + " BatchNormalization layer(s) normalise with each rank's own batch statistics:"
              + " ranks stay identical but do not match one process on the whole batch (set"
              + " DDP4J_SYNC_BATCHNORM=1 for that)");
    }
    return out;
  }
}
