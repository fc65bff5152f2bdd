package dev.ddp4j.runtime.bucket;

/**
 * A contiguous run of whole layers' gradients that is all-reduced as one message.
 *
 * @param index launch order: bucket 0 holds the last layers, whose gradients backward produces
 *     first
 * @param offset first element in the flat gradient
 * @param length number of elements
 * @param firstLayer the lowest layer index in the bucket: once its gradient is final, the bucket is
 *     ready
 */
public record Bucket(int index, long offset, long length, int firstLayer) {

  public long end() {
    return offset + length;
  }
}
