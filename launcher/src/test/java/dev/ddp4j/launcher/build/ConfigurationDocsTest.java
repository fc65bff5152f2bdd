package dev.ddp4j.launcher.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md against the code: every {@code DDP4J_} variable that a module's {@code
 * src/main} names as a string literal (how every one of them is read: {@code System.getenv("...")},
 * {@code env.get("...")}, or a constant) must have a row of its own there, and no variable may have
 * two rows (one place, one default).
 */
class ConfigurationDocsTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern LITERAL = Pattern.compile("\"(DDP4J_[A-Z0-9_]+)\"");

  /** The first cell of a table row: {@code | `DDP4J_X` (`NCCL_X`) | ...}. */
  private static final Pattern ROW =
      Pattern.compile("^\\| `(DDP4J_[A-Z0-9_]+)`", Pattern.MULTILINE);

  @Test
  void everyVariableTheCodeReadsShouldHaveARowInConfigurationMd() throws IOException {
    Map<String, Set<String>> read = variablesInCode();
    assertThat(read).as("found no DDP4J_ literal at all: is ROOT %s right?", ROOT).isNotEmpty();
    Set<String> documented = rows().keySet();
    Map<String, Set<String>> missing = new TreeMap<>(read);
    missing.keySet().removeAll(documented);
    assertThat(missing)
        .as("DDP4J_ variables read in src/main (-> files) but not listed in docs/configuration.md")
        .isEmpty();
  }

  /**
   * One reader: outside {@code Settings} no product code reads the environment itself, so every
   * variable gets the same parsing, fallbacks and error form (the bench module measures and is not
   * the product).
   */
  @Test
  void onlyTheSettingsReaderShouldReadTheEnvironment() throws IOException {
    Set<String> readers = new TreeSet<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path main :
          modules
              .filter(m -> !m.getFileName().toString().equals("bench"))
              .map(m -> m.resolve("src/main"))
              .filter(Files::isDirectory)
              .toList()) {
        try (Stream<Path> files = Files.walk(main)) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            if (Files.readString(f).contains("System.getenv(")) {
              readers.add(ROOT.relativize(f).toString());
            }
          }
        }
      }
    }
    assertThat(readers)
        .as("files under src/main that call System.getenv (use dev.ddp4j.spi.Settings)")
        .containsExactly("ddp-api/src/main/java/dev/ddp4j/spi/Settings.java");
  }

  @Test
  void everyVariableShouldHaveOneRowOnly() throws IOException {
    Map<String, Integer> twice = new TreeMap<>(rows());
    twice.values().removeIf(n -> n == 1);
    assertThat(twice).as("variables with more than one row in docs/configuration.md").isEmpty();
  }

  private static Map<String, Integer> rows() throws IOException {
    String doc = Files.readString(ROOT.resolve("docs/configuration.md"));
    Map<String, Integer> rows = new TreeMap<>();
    Matcher m = ROW.matcher(doc);
    while (m.find()) {
      rows.merge(m.group(1), 1, Integer::sum);
    }
    return rows;
  }

  /** Variable -> the files that name it, over every module's src/main. */
  private static Map<String, Set<String>> variablesInCode() throws IOException {
    Map<String, Set<String>> found = new TreeMap<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path main :
          modules.map(m -> m.resolve("src/main")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> files = Files.walk(main)) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            Matcher m = LITERAL.matcher(Files.readString(f));
            while (m.find()) {
              found
                  .computeIfAbsent(m.group(1), k -> new TreeSet<>())
                  .add(ROOT.relativize(f).toString());
            }
          }
        }
      }
    }
    return found;
  }
}
