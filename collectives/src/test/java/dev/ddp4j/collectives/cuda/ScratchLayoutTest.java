package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.testing.KernelBinaries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The scratch layout and the kernels' parameter block for 2 to 32 ranks, held against the numbers
 * the kernels were compiled with: the header's defines and the parameter sizes in the shipped PTX.
 */
class ScratchLayoutTest {

  private static final long MIB = 1 << 20;
  private static final long BUDGET = CudaSettings.DEFAULT_SCRATCH_MIB * MIB;

  private static long define(String name) throws Exception {
    String header = Files.readString(Path.of("src/main/cuda/ddp4j_device.cuh"));
    Matcher m = Pattern.compile("(?m)^#define " + name + " (\\d+)$").matcher(header);
    assertThat(m.find()).as("#define " + name + " in ddp4j_device.cuh").isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void shouldUseTheKernelsRankAndBlockLimits() throws Exception {
    assertThat(define("MAX_RANKS")).isEqualTo(ScratchLayout.MAX_RANKS).isEqualTo(32);
    assertThat(define("MAX_BLOCKS")).isEqualTo(ScratchLayout.MAX_BLOCKS);
    assertThat(ScratchLayout.FLAG_BYTES).isEqualTo(512L * 32 * 8);
  }

  /** The parameter block of every kernel as the shipped PTX declares it ({@code _param_0[N]}). */
  private static void assertParamBytes(String resource, String kernel, int bytes) throws Exception {
    Matcher m =
        Pattern.compile(Pattern.quote(kernel) + "_param_0\\[(\\d+)\\]")
            .matcher(KernelBinaries.text(resource));
    assertThat(m.find()).as(kernel + "'s parameter in " + resource).isTrue();
    assertThat(Integer.parseInt(m.group(1))).as(kernel).isEqualTo(bytes);
  }

  @Test
  void shouldPassTheParameterBlockTheShippedKernelsDeclare() throws Exception {
    assertThat(AllReduceLauncher.PARAM_BYTES)
        .isEqualTo(96 + 8 * 32 + 8 + 16 * 32)
        .isLessThanOrEqualTo(1024);
    assertThat(CollectiveLauncher.PARAM_BYTES).isEqualTo(96 + 8 * 32);
    for (String k :
        new String[] {
          "ddp4j_ll_float32_sum", "ddp4j_ring_bfloat16_max", "ddp4j_ringbroadcast_bytes"
        }) {
      assertParamBytes(AllReduceKernels.RESOURCE, k, AllReduceLauncher.PARAM_BYTES);
    }
    for (String k : new String[] {"ddp4j_reducescatter_int8_sum", "ddp4j_allgather_bytes"}) {
      assertParamBytes(CollectiveLauncher.RESOURCE, k, CollectiveLauncher.PARAM_BYTES);
    }
  }

  @Test
  void shouldFitNineSixteenAndThirtyTwoRanksInTheDefaultBudget() {
    // (240 MiB - flags) / 2(n - 1) less an LL slot, rounded down to MiB.
    assertThat(ScratchLayout.within(9, BUDGET).slotBytes()).isEqualTo(14 * MIB);
    assertThat(ScratchLayout.within(16, BUDGET).slotBytes()).isEqualTo(7 * MIB);
    assertThat(ScratchLayout.within(32, BUDGET).slotBytes()).isEqualTo(3 * MIB);
    for (int n : new int[] {2, 8, 9, 16, 32}) {
      ScratchLayout l = ScratchLayout.within(n, BUDGET);
      assertThat(l.totalBytes()).as("%d ranks", n).isLessThanOrEqualTo(BUDGET);
      assertThat(l.totalBytes())
          .isEqualTo(ScratchLayout.FLAG_BYTES + 2L * (n - 1) * (l.slotBytes() + 512 * 1024));
    }
  }

  @Test
  void shouldGiveEverySenderItsOwnSlotInBothHalvesAt32Ranks() {
    int n = 32;
    ScratchLayout l = ScratchLayout.within(n, BUDGET);
    long dataEnd = ScratchLayout.FLAG_BYTES + 2L * (n - 1) * l.slotBytes();
    for (long seq : new long[] {1, 2}) {
      for (int holder = 0; holder < n; holder++) {
        boolean[] taken = new boolean[n - 1];
        for (int sender = 0; sender < n; sender++) {
          if (sender == holder) {
            continue;
          }
          long at = l.slotOffset(seq, holder, sender) - ScratchLayout.FLAG_BYTES;
          long half = (seq & 1) * (n - 1) * l.slotBytes();
          assertThat(at - half).isNotNegative().isLessThan((n - 1) * l.slotBytes());
          assertThat((at - half) % l.slotBytes()).isZero();
          int index = (int) ((at - half) / l.slotBytes());
          assertThat(taken[index]).as("holder %d sender %d", holder, sender).isFalse();
          taken[index] = true;
          assertThat(at + ScratchLayout.FLAG_BYTES + l.slotBytes()).isLessThanOrEqualTo(dataEnd);
        }
      }
    }
    // The last rank's copy-engine flag is the last word of the flag area.
    assertThat(ScratchLayout.copyEngineFlagOffset(n - 1) + 8).isEqualTo(ScratchLayout.FLAG_BYTES);
  }

  @Test
  void shouldRefuse33RanksNamingTheCountTheLimitAndTheFix() {
    assertThatThrownBy(() -> ScratchLayout.within(33, BUDGET))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("33 ranks on one host")
        .hasMessageContaining("at most 32")
        .hasMessageContaining("--nproc-per-node");
  }

  @Test
  void shouldPackA32RankRingAByteAPosition() {
    int[] ring = new int[32];
    for (int k = 0; k < 32; k++) {
      ring[k] = (k * 5) % 32; // 5 is prime to 32: every rank once
    }
    byte[] packed = PeerRing.pack(ring);
    assertThat(packed).hasSize(ScratchLayout.MAX_RANKS);
    for (int k = 0; k < 32; k++) {
      assertThat(packed[k] & 0xff).isEqualTo(ring[k]);
    }
    assertThat(PeerRing.pack(new int[] {0, 2, 1})).startsWith(0, 2, 1, 0);
    assertThat(PeerRing.next(ring, ring[31])).isEqualTo(ring[0]);
    assertThatThrownBy(() -> PeerRing.pack(new int[33]))
        .hasMessageContaining("ring of 33 ranks (expected: at most 32");
  }

  @Test
  void shouldKeepA32RankRingsStepsInsideTheFlagWord() {
    // 2(n - 1) steps x pieces must stay below 2^16, whatever step a harness forces.
    long bytes = 32 * (3 * MIB - AllReduceLauncher.RING_SLOT_SLACK_BYTES);
    AllReduceTuning t = new AllReduceTuning(Algorithm.RING, 1, 16).fitRingFlags(bytes, 32);
    long slice = bytes / 32 + 16;
    long pieces = (slice + t.stepBytes() - 1) / t.stepBytes();
    assertThat(2L * 31 * pieces).isLessThanOrEqualTo(ScratchLayout.MAX_STEPS);
  }
}
