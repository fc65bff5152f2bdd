package dev.ddp4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.runtime.comm.CommHooks;
import dev.ddp4j.runtime.comm.PowerSgd;
import dev.ddp4j.spi.Settings;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DdpOptionsTest {

  @Test
  void shouldStartFromPyTorchsDefaults() {
    DdpOptions d = DdpOptions.defaults();
    assertThat(d.firstBucketBytes()).isEqualTo(DdpOptions.MIB);
    assertThat(d.bucketCapBytes()).isEqualTo(25 * DdpOptions.MIB);
    assertThat(d.commHook().name()).isEqualTo("allreduce");
    assertThat(d.timelinePattern()).isNull();
    assertThat(d.syncBatchNorm()).isFalse();
    assertThat(d.sharedGradients()).isTrue();
    assertThat(d.join()).isFalse();
    assertThat(DdpOptions.fromEnvironment(Settings.empty())).hasToString(d.toString());
  }

  @Test
  void shouldSetEachOptionAndKeepTheOthersThroughToBuilder() {
    DdpOptions o =
        DdpOptions.builder()
            .firstBucketMb(0.5)
            .bucketCapMb(50)
            .commHook(CommHooks.bf16Compress())
            .timeline("/tmp/t-{rank}.json")
            .build();
    assertThat(o.firstBucketBytes()).isEqualTo(DdpOptions.MIB / 2);
    assertThat(o.bucketCapBytes()).isEqualTo(50 * DdpOptions.MIB);
    DdpOptions changed =
        o.toBuilder().syncBatchNorm(true).sharedGradients(false).join(true).build();
    assertThat(changed.join()).isTrue();
    assertThat(changed.toBuilder().build().join()).isTrue();
    assertThat(changed.syncBatchNorm()).isTrue();
    assertThat(changed.sharedGradients()).isFalse();
    assertThat(changed.commHook().name()).isEqualTo("bf16");
    assertThat(changed.timelinePattern()).isEqualTo("/tmp/t-{rank}.json");
    assertThat(changed.bucketCapBytes()).isEqualTo(50 * DdpOptions.MIB);
    assertThat(o.syncBatchNorm()).isFalse(); // the original is unchanged
  }

  @Test
  void shouldReadTheVariables() {
    DdpOptions o =
        DdpOptions.fromEnvironment(
            Settings.of(
                Map.of(
                    "DDP4J_FIRST_BUCKET_MB", "2",
                    "DDP4J_BUCKET_CAP_MB", "0.25",
                    "DDP4J_COMM_HOOK", "fp16",
                    "DDP4J_SYNC_BATCHNORM", "1",
                    "DDP4J_SHARED_GRADIENTS", "0",
                    "DDP4J_JOIN", "1")));
    assertThat(o.join()).isTrue();
    assertThat(o.firstBucketBytes()).isEqualTo(2 * DdpOptions.MIB);
    assertThat(o.bucketCapBytes()).isEqualTo(DdpOptions.MIB / 4);
    assertThat(o.commHook().name()).isEqualTo("fp16");
    assertThat(o.syncBatchNorm()).isTrue();
    assertThat(o.sharedGradients()).isFalse();
  }

  @Test
  void shouldReadPowerSgdsRankAndStartStep() {
    PowerSgd dflt =
        (PowerSgd)
            DdpOptions.fromEnvironment(Settings.of(Map.of("DDP4J_COMM_HOOK", "powersgd")))
                .commHook();
    assertThat(dflt.rank()).isEqualTo(1);
    assertThat(dflt.startStep()).isEqualTo(1000);
    PowerSgd set =
        (PowerSgd)
            DdpOptions.fromEnvironment(
                    Settings.of(
                        Map.of(
                            "DDP4J_COMM_HOOK", "powersgd",
                            "DDP4J_POWERSGD_RANK", "4",
                            "DDP4J_POWERSGD_START_STEP", "10")))
                .commHook();
    assertThat(set.rank()).isEqualTo(4);
    assertThat(set.startStep()).isEqualTo(10);
    assertThat(set.name()).isEqualTo("powersgd");
  }

  @Test
  void shouldNameTheBadValue() {
    assertThatThrownBy(() -> DdpOptions.builder().bucketCapBytes(0))
        .isInstanceOf(ConfigException.class)
        .hasMessage("bucketCapBytes : 0 (expected: >= 1 byte)");
    assertThatThrownBy(() -> DdpOptions.builder().firstBucketMb(-1))
        .hasMessage("firstBucketMb : -1.0 (expected: a positive number of MiB, e.g. 25)");
    assertThatThrownBy(() -> DdpOptions.builder().commHook(null))
        .hasMessage("commHook : null (expected: a CommHook, e.g. CommHooks.allReduce())");
    assertThatThrownBy(
            () -> DdpOptions.fromEnvironment(Settings.of(Map.of("DDP4J_BUCKET_CAP_MB", "0"))))
        .hasMessage("DDP4J_BUCKET_CAP_MB=0 (expected: a positive number of MiB, e.g. 25)");
    assertThatThrownBy(
            () -> DdpOptions.fromEnvironment(Settings.of(Map.of("DDP4J_COMM_HOOK", "zip"))))
        .hasMessageStartingWith("DDP4J_COMM_HOOK=zip (expected: allreduce, fp16, bf16 or powersgd");
    assertThatThrownBy(
            () ->
                DdpOptions.fromEnvironment(
                    Settings.of(Map.of("DDP4J_COMM_HOOK", "powersgd", "DDP4J_POWERSGD_RANK", "0"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("DDP4J_POWERSGD_RANK=0 (expected: ");
    assertThatThrownBy(() -> DdpOptions.fromEnvironment(Settings.of(Map.of("DDP4J_JOIN", "yes!"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("DDP4J_JOIN=yes! (expected: 1 or 0)");
  }
}
