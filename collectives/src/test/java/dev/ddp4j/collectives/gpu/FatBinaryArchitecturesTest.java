package dev.ddp4j.collectives.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.ConfigException;
import dev.ddp4j.testing.KernelBinaries;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FatBinaryArchitecturesTest {

  /**
   * The cuda backend's shipped kernels (AllReduceKernels.RESOURCE, CollectiveLauncher.RESOURCE).
   */
  private static final String ALL_REDUCE = "/dev/ddp4j/collectives/cuda/ddp4j_allreduce.fatbin";

  private static final String COLLECTIVES = "/dev/ddp4j/collectives/cuda/ddp4j_collectives.fatbin";

  private static final int PTX = 1;
  private static final int ELF = 2;

  @Test
  void shouldRunSassOnTheSameMajorWithAnEqualOrHigherMinor() {
    FatBinaryArchitectures a = new FatBinaryArchitectures(Set.of(80), Set.of());
    assertThat(a.runsOn(8, 0)).isTrue();
    assertThat(a.runsOn(8, 6)).isTrue();
    assertThat(a.runsOn(8, 9)).isTrue();
    assertThat(a.runsOn(7, 5)).isFalse();
    assertThat(a.runsOn(9, 0)).as("SASS does not run on the next major").isFalse();
    assertThat(new FatBinaryArchitectures(Set.of(86), Set.of()).runsOn(8, 0)).isFalse();
  }

  @Test
  void shouldJitPtxForEveryEqualOrHigherComputeCapability() {
    FatBinaryArchitectures a = new FatBinaryArchitectures(Set.of(), Set.of(90));
    assertThat(a.runsOn(9, 0)).isTrue();
    assertThat(a.runsOn(10, 0)).isTrue();
    assertThat(a.runsOn(12, 0)).isTrue();
    assertThat(a.runsOn(8, 9)).isFalse();
  }

  @Test
  void shouldReadEveryEntryOfEveryContainer() {
    byte[] image =
        concat(
            container(entry(PTX, 90, 13), entry(ELF, 70, 100), entry(ELF, 90, 7)),
            container(entry(ELF, 86, 1)));
    FatBinaryArchitectures a = FatBinaryArchitectures.parse(image);
    assertThat(a.machineCode()).containsExactly(70, 86, 90);
    assertThat(a.ptx()).containsExactly(90);
  }

  @Test
  void shouldReadABufferRegionWithOffsetsFromItsPosition() {
    byte[] image = concat(container(entry(ELF, 75, 9)), container(entry(ELF, 86, 3)));
    // A section inside a mapped library: bytes before and after it, read from a direct buffer.
    ByteBuffer file = ByteBuffer.allocateDirect(24 + image.length + 40);
    file.position(24);
    file.put(image);
    ByteBuffer section = file.position(24).slice().limit(image.length);
    FatBinaryArchitectures a = FatBinaryArchitectures.parse(section);
    assertThat(a.machineCode()).containsExactly(75, 86);
    assertThat(a.ptx()).isEmpty();
    assertThat(FatBinaryArchitectures.entries(file.position(24).slice().limit(image.length)))
        .isEqualTo(FatBinaryArchitectures.entries(image));
    assertThat(section.position()).as("the caller's position").isZero();
    assertThatThrownBy(() -> FatBinaryArchitectures.parse(file.position(0)))
        .hasMessage(
            "not a CUDA fat binary: no container magic 0xBA55ED50 at byte 0 of " + file.capacity());
  }

  @Test
  void shouldRejectWhatIsNotAFatBinary() {
    assertThatThrownBy(() -> FatBinaryArchitectures.parse("\u007fELF....".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a CUDA fat binary: no container magic 0xBA55ED50 at byte 0 of 8");
    byte[] whole = container(entry(ELF, 90, 40));
    assertThatThrownBy(() -> FatBinaryArchitectures.parse(Arrays.copyOf(whole, whole.length - 8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("truncated CUDA fat binary");
  }

  @Test
  void shouldNameTheGpuItsComputeCapabilityAndTheSupportedOnesWhenTheKernelsCannotRun()
      throws Exception {
    byte[] shipped = KernelBinaries.resource(ALL_REDUCE);
    assertThatThrownBy(() -> FatBinaryArchitectures.requireRunsOn(0, "Tesla P100", 6, 0, shipped))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "GPU 0 (Tesla P100, compute capability 6.0) is not supported by ddp4j's kernels: they"
                + " hold machine code for sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 and PTX for"
                + " compute_90 (GPUs of compute capability 7.0 and newer); set DDP4J_BACKEND=cpu"
                + " on this machine");
  }

  @Test
  void shouldAcceptEveryGpuFromVoltaOnWithTheShippedKernels() throws Exception {
    for (String resource : new String[] {ALL_REDUCE, COLLECTIVES}) {
      byte[] shipped = KernelBinaries.resource(resource);
      // V100, Xavier, T4, A100, A10, Orin, L40, H200, B200, RTX 5090.
      int[][] gpus = {
        {7, 0}, {7, 2}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}
      };
      for (int[] cc : gpus) {
        FatBinaryArchitectures.requireRunsOn(0, "test GPU", cc[0], cc[1], shipped);
      }
      assertThat(FatBinaryArchitectures.parse(shipped).runsOn(6, 1)).isFalse();
    }
  }

  @Test
  void shouldDecompressEveryShippedEntryIntoAnElfOrPtxForItsArchitecture() throws Exception {
    for (String resource : new String[] {ALL_REDUCE, COLLECTIVES}) {
      byte[] image = KernelBinaries.resource(resource);
      List<FatBinaryArchitectures.Entry> entries = FatBinaryArchitectures.entries(image);
      assertThat(entries)
          .as(resource)
          .hasSize(7)
          .allMatch(FatBinaryArchitectures.Entry::compressed);
      for (FatBinaryArchitectures.Entry e : entries) {
        String text = new String(KernelBinaries.payload(image, e), StandardCharsets.ISO_8859_1);
        if (e.kind() == FatBinaryArchitectures.KIND_ELF) {
          assertThat(text).as(resource + " " + e).startsWith("\u007fELF");
        } else {
          assertThat(text).as(resource + " " + e).contains(".target sm_" + e.arch());
        }
      }
    }
  }

  @Test
  void shouldLeaveTheRangeOutWhereTheArchitecturesHaveGaps() {
    assertThat(new FatBinaryArchitectures(Set.of(70, 90), Set.of()).describe())
        .isEqualTo("machine code for sm_70, sm_90 and no PTX");
    assertThat(new FatBinaryArchitectures(Set.of(80), Set.of(80)).describe())
        .isEqualTo(
            "machine code for sm_80 and PTX for compute_80 (GPUs of compute capability 8.0 and"
                + " newer)");
  }

  /** One fat-binary entry as nvcc lays it out: a 64-byte header, then a padded payload. */
  private static byte[] entry(int kind, int arch, int payloadBytes) {
    int padded = (payloadBytes + 7) & ~7;
    ByteBuffer b = ByteBuffer.allocate(64 + padded).order(ByteOrder.LITTLE_ENDIAN);
    b.putShort(0, (short) kind).putShort(2, (short) 0x0101).putInt(4, 64);
    b.putLong(8, padded).putInt(16, payloadBytes).putInt(28, arch);
    return b.array();
  }

  private static byte[] container(byte[]... entries) {
    byte[] body = concat(entries);
    ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(0, FatBinaryArchitectures.MAGIC).putShort(4, (short) 1).putShort(6, (short) 16);
    h.putLong(8, body.length);
    return concat(h.array(), body);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
