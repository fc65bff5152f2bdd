package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DataType;
import org.junit.jupiter.api.Test;

class CostTableChooserTest {

  private final CostTableChooser auto = new CostTableChooser(null, 132);

  @Test
  void shouldNeverPickTwoShotOnTwoRanksWhereOneShotMovesTheSameBytesInOneHop() {
    for (long b = 8; b <= 1L << 30; b *= 4) {
      assertThat(auto.choose(b, 2, DataType.FLOAT32).algorithm())
          .isNotEqualTo(AllReduceAlgorithm.TWOSHOT);
    }
    assertThat(auto.choose(64 << 10, 2, DataType.FLOAT32).algorithm())
        .isIn(AllReduceAlgorithm.ONESHOT, AllReduceAlgorithm.LL);
    assertThat(auto.choose(8, 2, DataType.FLOAT32).algorithm()).isEqualTo(AllReduceAlgorithm.LL);
    assertThat(auto.choose(ScratchLayout.LL_MAX_BYTES, 2, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.LL);
    assertThat(auto.choose(4 << 20, 2, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.ONESHOT);
  }

  @Test
  void shouldKeepTheSlowerCopyEngineAlgorithmForThoseWhoForceIt() {
    assertThat(auto.choose(1L << 30, 2, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.ONESHOT);
    AllReduceTuning t =
        new CostTableChooser(AllReduceAlgorithm.COPY_ENGINE, 64)
            .choose(1L << 30, 2, DataType.FLOAT32);
    assertThat(t.algorithm()).isEqualTo(AllReduceAlgorithm.COPY_ENGINE);
    assertThat(t.stepBytes()).isEqualTo(CostTableChooser.COPY_ENGINE_CHUNK_BYTES);
  }

  @Test
  void shouldRunForcedLlAsOneShotAboveWhatAnLlSlotHolds() {
    CostTableChooser ll = new CostTableChooser(AllReduceAlgorithm.LL, 64);
    assertThat(ll.choose(ScratchLayout.LL_MAX_BYTES, 2, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.LL);
    assertThat(ll.choose(ScratchLayout.LL_MAX_BYTES + 16, 2, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.ONESHOT);
    assertThat(ll.choose(8, 2, DataType.FLOAT32).blocks()).isEqualTo(1);
    assertThat(ll.choose(ScratchLayout.LL_MAX_BYTES, 2, DataType.FLOAT32).blocks()).isEqualTo(64);
  }

  @Test
  void shouldPickTheAlgorithmWithTheLeastPredictedTime() {
    for (int ranks = 2; ranks <= 8; ranks++) {
      for (long b = 8; b <= 1L << 30; b *= 2) {
        AllReduceAlgorithm chosen = auto.choose(b, ranks, DataType.FLOAT32).algorithm();
        for (AllReduceAlgorithm other : AllReduceAlgorithm.values()) {
          assertThat(CostTableChooser.predictNs(chosen, b, ranks))
              .isLessThanOrEqualTo(CostTableChooser.predictNs(other, b, ranks));
        }
      }
    }
  }

  @Test
  void shouldSwitchToTwoShotForLargeMessagesOnMoreRanks() {
    assertThat(auto.choose(8 << 10, 8, DataType.FLOAT32).algorithm())
        .isNotEqualTo(AllReduceAlgorithm.TWOSHOT);
    assertThat(auto.choose(64 << 20, 8, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.TWOSHOT);
  }

  @Test
  void shouldGrowTheGridWithTheMessageUpToTheChannelLimit() {
    CostTableChooser oneshot = new CostTableChooser(AllReduceAlgorithm.ONESHOT, 132);
    assertThat(oneshot.choose(8, 2, DataType.FLOAT32).blocks()).isEqualTo(1);
    assertThat(oneshot.choose(256 << 10, 2, DataType.FLOAT32).blocks()).isEqualTo(8);
    assertThat(oneshot.choose(512 << 20, 2, DataType.FLOAT32).blocks()).isEqualTo(132);
    assertThat(
            new CostTableChooser(null, CostTableChooser.DEFAULT_MAX_CHANNELS)
                .choose(512 << 20, 2, DataType.FLOAT32)
                .blocks())
        .isEqualTo(64);
    assertThat(
            new CostTableChooser(AllReduceAlgorithm.TWOSHOT, 16)
                .choose(1 << 30, 2, DataType.INT8)
                .blocks())
        .isEqualTo(16);
  }

  @Test
  void shouldNameTheAcceptedAlgorithmsWhenDdp4jAlgoIsUnknown() {
    assertThat(AllReduceAlgorithm.parse("OneShot")).isEqualTo(AllReduceAlgorithm.ONESHOT);
    assertThatThrownBy(() -> AllReduceAlgorithm.parse("tree"))
        .hasMessageContaining("DDP4J_ALGO='tree'")
        .hasMessageContaining("oneshot, twoshot, copyengine, ring");
  }

  @Test
  void shouldKeepTheScratchWithinItsBudget() {
    ScratchLayout l = ScratchLayout.within(2, 240L << 20);
    assertThat(l.totalBytes()).isLessThanOrEqualTo(240L << 20);
    assertThat(l.slotBytes() % (1 << 20)).isZero();
    assertThat(l.totalBytes()).isGreaterThan(2 * l.slotBytes() + 2 * ScratchLayout.LL_SLOT_BYTES);
    assertThat(ScratchLayout.within(8, 240L << 20).totalBytes()).isLessThanOrEqualTo(240L << 20);
    assertThatThrownBy(() -> new ScratchLayout(9, 1 << 20)).hasMessageContaining("ranks : 9");
  }

  @Test
  void shouldNotPickTheRingOnItsOwnWhereEveryPairHasPeerAccess() {
    for (int ranks : new int[] {2, 4, 8}) {
      for (long b = 8; b <= 1L << 30; b *= 4) {
        assertThat(auto.choose(b, ranks, DataType.FLOAT32).algorithm())
            .as("%d bytes on %d ranks", b, ranks)
            .isNotEqualTo(AllReduceAlgorithm.RING);
      }
    }
  }

  @Test
  void shouldPredictTheRingAsTwoNMinusOneStepsOfTwoNMinusOneOverNOfTheBytes() {
    long bytes = 256L << 20;
    double expected =
        6 * CostTableChooser.RING_STEP_LATENCY_NS
            + 1.5 * bytes / CostTableChooser.RING_BYTES_PER_NS;
    assertThat(CostTableChooser.predictNs(AllReduceAlgorithm.RING, bytes, 4))
        .isCloseTo(expected, org.assertj.core.data.Offset.offset(1.0));
    assertThat(CostTableChooser.predictNs(AllReduceAlgorithm.RING, 8, 8))
        .isGreaterThan(CostTableChooser.predictNs(AllReduceAlgorithm.TWOSHOT, 8, 8));
  }

  @Test
  void shouldShapeRingLaunchesByTheBytesPerRankForcedOrRequired() {
    AllReduceTuning forced =
        new CostTableChooser(AllReduceAlgorithm.RING, 64).choose(8L << 20, 4, DataType.FLOAT32);
    assertThat(forced.algorithm()).isEqualTo(AllReduceAlgorithm.RING);
    assertThat(forced.blocks()).isEqualTo(64); // 2 MiB per rank / 32 KiB per block
    assertThat(forced.gridBlocks()).isEqualTo(64);
    assertThat(forced.stepBytes()).isEqualTo(CostTableChooser.STEP_BYTES);
    assertThat(auto.chooseRing(8, 4, DataType.FLOAT32).algorithm())
        .isEqualTo(AllReduceAlgorithm.RING);
    assertThat(auto.chooseRing(8, 4, DataType.FLOAT32).blocks()).isEqualTo(1);
    // A chooser that knows nothing of rings still gets a ring shape where the group needs one.
    AllReduceChooser oneshotOnly =
        (b, r, t) -> new AllReduceTuning(AllReduceAlgorithm.ONESHOT, 8, 16 << 10);
    assertThat(oneshotOnly.chooseRing(1 << 20, 4, DataType.BFLOAT16).algorithm())
        .isEqualTo(AllReduceAlgorithm.RING);
    assertThat(AllReduceAlgorithm.parse("RING")).isEqualTo(AllReduceAlgorithm.RING);
  }

  @Test
  void shouldWidenARingStepThatWouldWrapTheSixteenBitStepCount() {
    // 8 ranks, one block, 240 MiB, 16-byte steps: 14 x (30 MiB / 16 B) steps would wrap 0xffff.
    long bytes = 240L << 20;
    AllReduceTuning tiny = new AllReduceTuning(AllReduceAlgorithm.RING, 1, 16);
    AllReduceTuning fitted = tiny.fitRingFlags(bytes, 8);
    long pieces = (bytes / 8 + fitted.stepBytes() - 1) / fitted.stepBytes();
    assertThat(2 * 7 * pieces).isLessThanOrEqualTo(ScratchLayout.MAX_STEPS);
    assertThat(fitted.stepBytes() % 16).isZero();
    AllReduceTuning usual =
        new CostTableChooser(AllReduceAlgorithm.RING, 64).choose(bytes, 8, null);
    assertThat(usual.fitRingFlags(bytes, 8)).isSameAs(usual);
  }
}
