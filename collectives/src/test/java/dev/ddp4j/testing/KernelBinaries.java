package dev.ddp4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that a CUDA fat binary shipped as a resource was built from the .cu source in the tree and
 * the headers it includes with {@code #include "..."}: {@code scripts/build-kernels.sh} records
 * their SHA-256s and the binary's in a {@code .sha256} resource beside the binary.
 */
public final class KernelBinaries {

  private KernelBinaries() {}

  /** The bytes of classpath resource {@code name}, failing the test if it is missing. */
  public static byte[] resource(String name) throws Exception {
    try (InputStream in = KernelBinaries.class.getResourceAsStream(name)) {
      assertThat(in).as(name + " on the classpath").isNotNull();
      return in.readAllBytes();
    }
  }

  /**
   * The payloads of every entry of fat-binary resource {@code name}, decompressed, as one
   * ISO-8859-1 string: where a test looks for kernel names (the PTX's {@code .entry} lines, the ELF
   * symbols).
   */
  public static String text(String name) throws Exception {
    byte[] image = resource(name);
    StringBuilder out = new StringBuilder();
    for (FatBinaryArchitectures.Entry e : FatBinaryArchitectures.entries(image)) {
      out.append(new String(payload(image, e), StandardCharsets.ISO_8859_1));
    }
    return out.toString();
  }

  /** Entry {@code e}'s payload in {@code image}, decompressed where it is compressed. */
  public static byte[] payload(byte[] image, FatBinaryArchitectures.Entry e) {
    return e.compressed()
        ? lz4Block(image, e.payloadOffset(), e.payloadBytes(), (int) e.uncompressedBytes())
        : Arrays.copyOfRange(image, e.payloadOffset(), e.payloadOffset() + e.payloadBytes());
  }

  /**
   * Decodes one LZ4 block (the format of nvcc's compressed fat-binary entries): sequences of a
   * token (literal count in the high nibble, match length - 4 in the low one, 15 meaning more bytes
   * follow, each 255 meaning more again), the literals, then a 2-byte little-endian back offset.
   */
  static byte[] lz4Block(byte[] in, int from, int length, int outBytes) {
    byte[] out = new byte[outBytes];
    int i = from;
    int end = from + length;
    int o = 0;
    while (i < end) {
      int token = in[i++] & 0xFF;
      int literals = token >>> 4;
      if (literals == 15) {
        int more;
        do {
          more = in[i++] & 0xFF;
          literals += more;
        } while (more == 255);
      }
      System.arraycopy(in, i, out, o, literals);
      i += literals;
      o += literals;
      if (i >= end) {
        break; // the last sequence has literals only
      }
      int offset = (in[i] & 0xFF) | (in[i + 1] & 0xFF) << 8;
      i += 2;
      int match = (token & 15) + 4;
      if ((token & 15) == 15) {
        int more;
        do {
          more = in[i++] & 0xFF;
          match += more;
        } while (more == 255);
      }
      for (int k = 0; k < match; k++, o++) {
        out[o] = out[o - offset]; // byte by byte: a match may overlap what it copies
      }
    }
    assertThat(o).as("decompressed bytes of a fat-binary entry").isEqualTo(outBytes);
    return out;
  }

  /**
   * Asserts that {@code source} (relative to the module) and {@code binaryResource} are the pair
   * recorded in {@code hashResource}; the failure says to run {@code scripts/build-kernels.sh} with
   * its arguments.
   */
  public static void assertBuiltFromSource(
      String source, String binaryResource, String hashResource) throws Exception {
    String recorded = new String(resource(hashResource), StandardCharsets.US_ASCII);
    String file = Path.of(source).getFileName().toString();
    assertThat(recorded)
        .as(file + " changed since scripts/build-kernels.sh last built it: run it and commit")
        .contains("source " + sha256(Files.readAllBytes(Path.of(source))));
    Matcher include =
        Pattern.compile("(?m)^#include \"([^\"]+)\"")
            .matcher(Files.readString(Path.of(source), StandardCharsets.UTF_8));
    while (include.find()) {
      Path header = Path.of(source).resolveSibling(include.group(1));
      assertThat(recorded)
          .as(
              header
                  + " (included by "
                  + file
                  + ") changed since scripts/build-kernels.sh last built it")
          .contains("include " + include.group(1) + " " + sha256(Files.readAllBytes(header)));
    }
    assertThat(recorded)
        .as(binaryResource + " is not the binary scripts/build-kernels.sh recorded")
        .contains("fatbin " + sha256(resource(binaryResource)));
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
