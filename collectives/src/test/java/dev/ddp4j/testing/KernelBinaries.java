package dev.ddp4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
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
