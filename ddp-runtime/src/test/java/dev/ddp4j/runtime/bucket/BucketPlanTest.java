package dev.ddp4j.runtime.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketPlanTest {

  private static final long MIB = 1 << 20;

  /** Layers of the given float counts, laid out in order. */
  private static List<ParamRange> layers(long... sizes) {
    List<ParamRange> out = new ArrayList<>();
    long off = 0;
    for (int i = 0; i < sizes.length; i++) {
      out.add(new ParamRange(i, "layer " + i, off, sizes[i]));
      off += sizes[i];
    }
    return out;
  }

  @Test
  void shouldFillBucketsFromTheLastLayerWithASmallFirstBucket() {
    // 4 layers of 1 MiB of floats each (262144 floats): bucket 0 holds the last layer alone (1 MiB
    // cap),
    // the 3 MiB cap then takes layers 2, 1, 0 together.
    long l = MIB / 4;
    BucketPlan p = BucketPlan.of(layers(l, l, l, l), 4, MIB, 3 * MIB);
    assertThat(p.buckets()).containsExactly(new Bucket(0, 3 * l, l, 3), new Bucket(1, 0, 3 * l, 0));
    assertThat(p.totalLength()).isEqualTo(4 * l);
  }

  @Test
  void aLayerLargerThanTheCapShouldGetABucketOfItsOwn() {
    BucketPlan p = BucketPlan.of(layers(10, 1000, 10), 4, 100, 100);
    assertThat(p.buckets())
        .containsExactly(
            new Bucket(0, 1010, 10, 2), new Bucket(1, 10, 1000, 1), new Bucket(2, 0, 10, 0));
  }

  @Test
  void bucketsShouldTileTheWholeGradientInReverseOrder() {
    BucketPlan p = BucketPlan.of(layers(7, 3, 9, 1, 12, 5), 8, 40, 100);
    long end = p.totalLength();
    for (Bucket b : p.buckets()) {
      assertThat(b.end()).isEqualTo(end);
      end = b.offset();
    }
    assertThat(end).isZero();
  }

  @Test
  void shouldRefuseRangesWithGaps() {
    List<ParamRange> gap =
        List.of(new ParamRange(0, "layer 0", 0, 5), new ParamRange(1, "layer 1", 6, 5));
    assertThatThrownBy(() -> BucketPlan.of(gap, 4, MIB, MIB))
        .hasMessageContaining("layer 1 starts at element 6 but the previous layer ends at 5");
    assertThatThrownBy(() -> BucketPlan.of(layers(1), 4, 0, MIB))
        .hasMessageContaining("expected: both >= 1");
  }
}
