package dev.ddp4j.bench.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.runtime.cuda.CommStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyntheticSpecTest {

  @Test
  void shouldExpandRepeatedLayersWithDecimalSuffixes() {
    assertThat(SyntheticSpec.parseLayers("8x16.75M")).hasSize(8).containsOnly(16_750_000L);
    assertThat(SyntheticSpec.parseLayers("1k, 2x3")).containsExactly(1000L, 3L, 3L);
  }

  @Test
  void shouldSpreadATotalBackwardTimeInProportionToLayerSizes() {
    long[] ns = SyntheticSpec.parseBackward("300", new long[] {1, 2});
    assertThat(ns).containsExactly(100_000L, 200_000L);
  }

  @Test
  void shouldTakeOneBackwardTimePerLayer() {
    assertThat(SyntheticSpec.parseBackward("1,2.5", new long[] {7, 7}))
        .containsExactly(1000L, 2500L);
  }

  @Test
  void shouldPickAboutTwoSecondsOfStepsWhenStepsIsZero() {
    SyntheticSpec s = SyntheticSpec.parse(List.of("--layers", "16x4.1875M", "--backward-us=22200"));
    assertThat(s.steps()).isBetween(60, 80);
    assertThat(s.totalBackwardNs()).isEqualTo(22_200_000L);
    assertThat(s.traceFile()).isNull();
  }

  @Test
  void shouldNameTheMismatchWhenBackwardTimesDoNotMatchLayers() {
    assertThatThrownBy(() -> SyntheticSpec.parseBackward("1,2,3", new long[] {1, 1}))
        .hasMessageContaining("3 values for 2 layers");
    assertThatThrownBy(() -> SyntheticSpec.parse(List.of("--layers", "4")))
        .hasMessageContaining("--backward-us");
  }

  @Test
  void shouldDefaultToPyTorchsBucketCapsAndTheHighestCommPriority() {
    SyntheticSpec s = SyntheticSpec.parse(List.of("--layers", "4", "--backward-us", "10"));
    assertThat(s.firstBucketBytes()).isEqualTo(1L << 20);
    assertThat(s.bucketCapBytes()).isEqualTo(25L << 20);
    assertThat(s.commPriority()).isEqualTo(CommStream.Priority.HIGHEST);
  }

  @Test
  void shouldTakeBucketCapsInMebibytesAndTheCommPriority() {
    SyntheticSpec s =
        SyntheticSpec.parse(
            List.of(
                "--layers",
                "4",
                "--backward-us",
                "10",
                "--bucket-cap-mb",
                "100",
                "--first-bucket-mb=0.5",
                "--comm-priority",
                "normal"));
    assertThat(s.firstBucketBytes()).isEqualTo(1L << 19);
    assertThat(s.bucketCapBytes()).isEqualTo(100L << 20);
    assertThat(s.commPriority()).isEqualTo(CommStream.Priority.NORMAL);
  }

  @Test
  void shouldNameABadBucketCapOrPriority() {
    assertThatThrownBy(
            () ->
                SyntheticSpec.parse(
                    List.of("--layers", "4", "--backward-us", "10", "--bucket-cap-mb", "-3")))
        .hasMessageContaining("--bucket-cap-mb -3")
        .hasMessageContaining("positive number of MiB");
    assertThatThrownBy(
            () ->
                SyntheticSpec.parse(
                    List.of("--layers", "4", "--backward-us", "10", "--comm-priority", "low")))
        .hasMessageContaining("--comm-priority low (expected: highest or normal)");
  }
}
