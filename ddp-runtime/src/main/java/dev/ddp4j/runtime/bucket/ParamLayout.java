package dev.ddp4j.runtime.bucket;

import java.util.Arrays;

/**
 * Where one parameter (a layer's weight matrix, bias, ...) and so its gradient lie in the model's
 * flat buffer, and how to view its elements as the parameter's array.
 *
 * @param layer the layer's index, as in {@link ParamRange#layer()}
 * @param layerName the layer, as in {@link ParamRange#name()}, e.g. {@code layer 2 (DenseLayer)}
 * @param key DL4J's key of the parameter in its layer, e.g. {@code W} or {@code b}
 * @param offset first element in the flat buffer
 * @param shape the parameter's shape, e.g. {@code [nIn, nOut]} for a dense layer's weights
 * @param order the order its elements are laid out in ({@code 'f'} for DL4J's dense weights)
 */
public record ParamLayout(
    int layer, String layerName, String key, long offset, long[] shape, char order) {

  public ParamLayout {
    shape = shape.clone();
  }

  /** The layer and the key, e.g. {@code layer 2 (DenseLayer) W}. */
  public String name() {
    return layerName + " " + key;
  }

  /** Number of elements. */
  public long length() {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  public long end() {
    return offset + length();
  }

  @Override
  public long[] shape() {
    return shape.clone();
  }

  /** Number of dimensions: 1 for a bias, 2 for a dense weight matrix, 4 for a convolution's. */
  public int rank() {
    return shape.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ParamLayout p
        && p.layer == layer
        && p.layerName.equals(layerName)
        && p.key.equals(key)
        && p.offset == offset
        && Arrays.equals(p.shape, shape)
        && p.order == order;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * name().hashCode() + Long.hashCode(offset)) + Arrays.hashCode(shape);
  }

  @Override
  public String toString() {
    return name() + " " + Arrays.toString(shape) + " at " + offset;
  }
}
