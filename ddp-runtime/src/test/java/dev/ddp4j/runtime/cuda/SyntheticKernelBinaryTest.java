package dev.ddp4j.runtime.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class SyntheticKernelBinaryTest {

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  private static byte[] resource(String name) throws Exception {
    try (InputStream in = SyntheticKernelBinaryTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name + " on the classpath").isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void shouldShipTheKernelBinaryBuiltFromTheCurrentSource() throws Exception {
    String recorded =
        new String(
            resource("/dev/ddp4j/runtime/cuda/ddp4j_synthetic.sha256"), StandardCharsets.US_ASCII);
    byte[] source = Files.readAllBytes(Path.of("src/main/cuda/ddp4j_synthetic.cu"));
    assertThat(recorded)
        .as(
            "ddp4j_synthetic.cu changed since scripts/build-ddp-kernels.sh last ran: run it, commit")
        .contains("source " + sha256(source));
    byte[] image = resource(SyntheticModel.RESOURCE);
    assertThat(recorded)
        .as("ddp4j_synthetic.fatbin is not the binary scripts/build-ddp-kernels.sh recorded")
        .contains("fatbin " + sha256(image));
    String text = new String(image, StandardCharsets.ISO_8859_1);
    assertThat(text).contains("ddp4j_backward_spin").contains("ddp4j_sgd");
  }
}
