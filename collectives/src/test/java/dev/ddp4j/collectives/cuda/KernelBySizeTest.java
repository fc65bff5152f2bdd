package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The INFO line that says which all-reduce kernel a cuda group runs at which size. */
class KernelBySizeTest {

  private static final long SLOT = 119L << 20;

  @Test
  void shouldListLowLatencyThenOneShotOnTwoGpus() {
    String line = KernelBySize.summary(new CostTableChooser(null, 64), 2, SLOT, false);
    assertThat(line).isEqualTo("ll 8 B-256 KiB, oneshot 512 KiB-4 GiB");
  }

  @Test
  void shouldListTheForcedKernelAtEverySizeWhereItFits() {
    assertThat(
            KernelBySize.summary(
                new CostTableChooser(AllReduceAlgorithm.TWOSHOT, 64), 4, SLOT, false))
        .isEqualTo("twoshot 8 B-4 GiB");
    // LL carries at most 256 KiB a launch: forced, larger messages run one-shot.
    assertThat(
            KernelBySize.summary(new CostTableChooser(AllReduceAlgorithm.LL, 64), 2, SLOT, false))
        .isEqualTo("ll 8 B-256 KiB, oneshot 512 KiB-4 GiB");
  }

  @Test
  void shouldListTheRingAtEverySizeWhenPairsOffTheRingLackPeerAccess() {
    assertThat(KernelBySize.summary(new CostTableChooser(null, 64), 4, SLOT, true))
        .isEqualTo("ring 8 B-4 GiB");
  }
}
