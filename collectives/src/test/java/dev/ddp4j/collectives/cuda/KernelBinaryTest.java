package dev.ddp4j.collectives.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KernelBinaryTest {

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  private static byte[] resource(String name) throws Exception {
    try (InputStream in = KernelBinaryTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name + " on the classpath").isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void shouldShipTheKernelBinaryBuiltFromTheCurrentSource() throws Exception {
    String recorded =
        new String(
            resource("/dev/ddp4j/collectives/cuda/ddp4j_allreduce.sha256"),
            StandardCharsets.US_ASCII);
    byte[] source = Files.readAllBytes(Path.of("src/main/cuda/ddp4j_allreduce.cu"));
    assertThat(recorded)
        .as("ddp4j_allreduce.cu changed since scripts/build-kernels.sh last ran: run it and commit")
        .contains("source " + sha256(source));
    assertThat(recorded)
        .as("ddp4j_allreduce.fatbin is not the binary scripts/build-kernels.sh recorded")
        .contains("fatbin " + sha256(resource(AllReduceKernels.RESOURCE)));
  }

  @Test
  void shouldDefineEveryKernelTheBackendLooksUp() throws Exception {
    // The fat binary embeds the PTX, whose .entry lines name every kernel.
    String image = new String(resource(AllReduceKernels.RESOURCE), StandardCharsets.ISO_8859_1);
    for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
      for (dev.ddp4j.DataType t : dev.ddp4j.DataType.values()) {
        for (dev.ddp4j.ReduceOp op : dev.ddp4j.ReduceOp.values()) {
          assertThat(image).contains(AllReduceKernels.name(a, t, op));
        }
      }
    }
  }
}
