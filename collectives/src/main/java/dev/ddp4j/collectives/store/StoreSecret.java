package dev.ddp4j.collectives.store;

import dev.ddp4j.ConfigException;
import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The job secret store clients prove to the store server. The launcher makes a random one per job
 * and passes it to its workers in {@value #SECRET_VAR}; multi-node jobs share one the user gives
 * every launcher ({@code --store-secret-file}, {@value #SECRET_VAR} or {@value #SECRET_FILE_VAR}).
 */
public final class StoreSecret {

  /** The secret itself. */
  public static final String SECRET_VAR = "DDP4J_STORE_SECRET";

  /** A file whose content (trimmed) is the secret, read when {@value #SECRET_VAR} is unset. */
  public static final String SECRET_FILE_VAR = "DDP4J_STORE_SECRET_FILE";

  private StoreSecret() {}

  /** A fresh random secret: 32 random bytes as hex. */
  public static String random() {
    byte[] b = new byte[32];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /**
   * The secret {@code env} names: {@value #SECRET_VAR}, else the content of {@value
   * #SECRET_FILE_VAR}, else empty (no authentication).
   *
   * @throws ConfigException when the secret file cannot be read
   */
  public static String fromEnvironment(Settings env) {
    return env.text(SECRET_VAR)
        .or(() -> env.text(SECRET_FILE_VAR).map(f -> readFile(Path.of(f), SECRET_FILE_VAR)))
        .orElse("");
  }

  /** The trimmed content of {@code path}; {@code setting} names where the path came from. */
  public static String readFile(Path path, String setting) {
    try {
      String s = Files.readString(path, StandardCharsets.UTF_8).trim();
      if (s.isEmpty()) {
        throw new ConfigException(
            setting + "=" + path + " is empty (expected: a file holding the job secret)");
      }
      return s;
    } catch (IOException e) {
      throw new ConfigException(
          setting
              + "="
              + path
              + " cannot be read: "
              + e
              + " (expected: a readable file holding the job secret)");
    }
  }
}
