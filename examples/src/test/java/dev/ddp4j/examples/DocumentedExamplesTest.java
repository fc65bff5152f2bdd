package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of the README and of docs/ compiles, as written, against the
 * project's API: each block becomes the body of a method whose parameters are the user's own values
 * the snippets assume ({@link #USER_VALUES}), and {@code ...} where a snippet elides a value
 * becomes a placeholder of the declared type. A renamed method or a changed signature fails here
 * before a user copies the snippet.
 */
class DocumentedExamplesTest {

  private static final String IMPORTS =
      String.join(
          "\n",
          "import dev.ddp4j.*;",
          "import dev.ddp4j.runtime.*;",
          "import dev.ddp4j.runtime.comm.*;",
          "import dev.ddp4j.runtime.checkpoint.*;",
          "import dev.ddp4j.runtime.data.*;",
          "import java.nio.file.Path;",
          "import java.time.Duration;",
          "import java.util.*;",
          "import org.deeplearning4j.nn.graph.ComputationGraph;",
          "import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;",
          "import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;");

  /** What a snippet may use without declaring it: the user's model, data and job values. */
  private static final String USER_VALUES =
      "MultiLayerNetwork net, ComputationGraph graph, DataSetIterator trainIterator,"
          + " DataSetIterator testIterator, long seed, int epochs, int rank, int worldSize,"
          + " Store myStore";

  private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

  @Test
  void shouldCompileEveryJavaBlockOfTheReadmeAndTheDocs() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<JavaFileObject> sources = new ArrayList<>();
    for (Path page : pages) {
      Matcher m = BLOCK.matcher(Files.readString(page));
      while (m.find()) {
        int line = Files.readString(page).substring(0, m.start()).split("\n", -1).length;
        String where = root.relativize(page) + " line " + line;
        sources.add(snippet("Snippet" + sources.size(), where, m.group(1)));
      }
    }
    assertThat(sources).as("the README shows Java").hasSizeGreaterThanOrEqualTo(2);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> problems = new DiagnosticCollector<>();
    Path out = Files.createTempDirectory("ddp4j-snippets");
    boolean ok =
        javac
            .getTask(
                null,
                null,
                problems,
                List.of(
                    "-classpath",
                    System.getProperty("java.class.path"),
                    "-d",
                    out.toString(),
                    "-proc:none"),
                null,
                sources)
            .call();
    StringBuilder report = new StringBuilder();
    problems
        .getDiagnostics()
        .forEach(
            d ->
                report
                    .append(((Snippet) d.getSource()).where)
                    .append(" (snippet line ")
                    .append(d.getLineNumber() - HEADER_LINES)
                    .append("): ")
                    .append(d.getMessage(null))
                    .append('\n'));
    assertThat(ok).as(report.toString()).isTrue();
  }

  // The lines above a snippet's first line in its compilation unit.
  private static final int HEADER_LINES = header("X").split("\n", -1).length - 1;

  private static String header(String name) {
    return IMPORTS
        + "\nclass "
        + name
        + " {\n  static <T> T placeholder() { return null; }\n  void run("
        + USER_VALUES
        + ") throws Exception {\n";
  }

  private static Snippet snippet(String name, String where, String body) {
    String code = header(name) + body.replace("= ...;", "= placeholder();") + "\n  }\n}\n";
    return new Snippet(name, where, code);
  }

  /** One snippet as a compilation unit, with where it came from for the report. */
  private static final class Snippet extends SimpleJavaFileObject {
    final String where;
    final String code;

    Snippet(String name, String where, String code) {
      super(URI.create("string:///" + name + ".java"), Kind.SOURCE);
      this.where = where;
      this.code = code;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return code;
    }
  }
}
