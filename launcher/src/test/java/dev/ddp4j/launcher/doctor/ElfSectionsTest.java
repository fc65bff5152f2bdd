package dev.ddp4j.launcher.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ELF section lookup on the nvcc-built fixture library (src/test/resources/nd4j/). */
class ElfSectionsTest {

  @TempDir Path tmp;

  @Test
  void shouldFindTheFatBinarySectionWhereReadelfSaysItIs() throws IOException {
    Path so = fixture(Nd4jJars.fixtureLibrary());
    try (FileChannel ch = FileChannel.open(so)) {
      // readelf -S -W libnd4jcuda.so: [15] .nv_fatbin PROGBITS ... 002018 002670
      assertThat(ElfSections.find(ch, ".nv_fatbin"))
          .contains(new ElfSections.Section(".nv_fatbin", 0x2018, 0x2670));
      assertThat(ElfSections.find(ch, ".nv_fatbi")).as("a prefix of a name").isEmpty();
      assertThat(ElfSections.find(ch, ".nv_no_such")).isEmpty();
      ByteBuffer section = ch.map(FileChannel.MapMode.READ_ONLY, 0x2018, 0x2670);
      assertThat(section.order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(0xBA55ED50);
    }
    FatBinaryArchitectures a = CudaLibraryArchitectures.ofLibrary(so);
    assertThat(a.machineCode()).containsExactly(75, 86);
    assertThat(a.ptx()).isEmpty();
  }

  @Test
  void shouldRejectWhatIsNoElf64File() throws IOException {
    byte[] lib = Nd4jJars.fixtureLibrary();
    lib[4] = 1; // ELFCLASS32
    try (FileChannel ch = FileChannel.open(fixture(lib))) {
      assertThatThrownBy(() -> ElfSections.find(ch, ".nv_fatbin"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "not a little-endian ELF64 file: header bytes 7F 45 4C 46, class 1, data 1"
                  + " (expected: 7F 45 4C 46, class 2, data 1)");
    }
  }

  @Test
  void aLibraryCutShortShouldSayWhereItEnds() throws IOException {
    byte[] lib = Nd4jJars.fixtureLibrary();
    // The section headers lie at the end; keep the fat binary but lose them.
    try (FileChannel ch = FileChannel.open(fixture(Arrays.copyOf(lib, 0x5000)))) {
      assertThatThrownBy(() -> ElfSections.find(ch, ".nv_fatbin"))
          .isInstanceOf(EOFException.class)
          .hasMessageStartingWith("ELF file ends at byte 20480, before ");
    }
  }

  private Path fixture(byte[] bytes) throws IOException {
    return Files.write(tmp.resolve("libnd4jcuda.so"), bytes);
  }
}
