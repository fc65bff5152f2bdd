package dev.ddp4j.bench.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.runtime.cuda.DeviceTrace;
import java.util.List;
import org.junit.jupiter.api.Test;

class OverlapTest {

  private static DeviceTrace.Span bwd(int layer, double s, double e) {
    return new DeviceTrace.Span("backward layer " + layer, DeviceTrace.COMPUTE, s, e);
  }

  private static DeviceTrace.Span bucket(int b, double s, double e) {
    return new DeviceTrace.Span("allreduce bucket " + b, DeviceTrace.COMM, s, e);
  }

  @Test
  void shouldSeeTheFirstBucketStartBeforeBackwardEnds() {
    Overlap o =
        Overlap.of(List.of(bwd(1, 0, 10), bucket(0, 11, 15), bwd(0, 10, 20), bucket(1, 21, 30)));
    assertThat(o.firstBucketBeforeBackwardEnds()).isTrue();
    assertThat(o.backwardEndUs()).isEqualTo(20);
    assertThat(o.firstBucketStartUs()).isEqualTo(11);
    assertThat(o.lastBucketEndUs()).isEqualTo(30);
  }

  @Test
  void shouldSeeNoOverlapWhenCommunicationWaitsForTheWholeBackward() {
    Overlap o =
        Overlap.of(List.of(bwd(1, 0, 10), bwd(0, 10, 20), bucket(0, 21, 25), bucket(1, 25, 30)));
    assertThat(o.firstBucketBeforeBackwardEnds()).isFalse();
  }

  @Test
  void shouldRefuseATraceWithoutAllReduces() {
    assertThatThrownBy(() -> Overlap.of(List.of(bwd(0, 0, 1))))
        .hasMessageContaining("no backward or no all-reduce");
  }
}
