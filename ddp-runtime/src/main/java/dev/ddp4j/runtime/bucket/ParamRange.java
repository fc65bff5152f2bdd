package dev.ddp4j.runtime.bucket;

/**
 * Where one layer's parameters (and so its gradients) sit in the model's flat buffer.
 *
 * @param layer the layer's index in backward order's reverse: the position in the flat buffer, 0
 *     first
 * @param name a name for logs and timelines, e.g. {@code layer 2 (DenseLayer)}
 * @param offset first element in the flat buffer
 * @param length number of elements
 */
public record ParamRange(int layer, String name, long offset, long length) {

  public ParamRange {
    if (offset < 0 || length < 1) {
      throw new IllegalArgumentException(
          name + ": range [" + offset + ", +" + length + ") (expected: offset >= 0, length >= 1)");
    }
  }

  public long end() {
    return offset + length;
  }
}
