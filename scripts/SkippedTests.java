import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The summary scripts/test.sh prints after {@code mvn -B verify}: every skipped test of this run,
 * grouped by the reason its assumption or condition gave, read from the surefire and failsafe XML
 * reports under {@code ROOT/<module>/target}. Reports older than {@code MARKER} (a file touched before
 * the build started) belong to an earlier run and are left out, so a module that did not run this
 * time cannot pass off its old results.
 *
 * <p>Usage: {@code java scripts/SkippedTests.java MARKER ROOT}. Exit status 0 (also when nothing was
 * skipped), 2 on bad arguments.
 */
public final class SkippedTests {

  private SkippedTests() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: java scripts/SkippedTests.java MARKER ROOT");
      System.exit(2);
    }
    FileTime since = Files.getLastModifiedTime(Path.of(args[0]));
    List<Path> reports = reports(Path.of(args[1]), since);
    // reason -> test class -> skipped test count, both sorted, so the output is stable.
    Map<String, Map<String, Integer>> byReason = new TreeMap<>();
    int tests = 0;
    int skipped = 0;
    for (Path report : reports) {
      Element suite =
          DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile())
              .getDocumentElement();
      NodeList cases = suite.getElementsByTagName("testcase");
      tests += cases.getLength();
      for (int i = 0; i < cases.getLength(); i++) {
        Element c = (Element) cases.item(i);
        NodeList skips = c.getElementsByTagName("skipped");
        if (skips.getLength() == 0) {
          continue;
        }
        skipped++;
        String reason = reason((Element) skips.item(0));
        String cls = c.getAttribute("classname");
        byReason
            .computeIfAbsent(reason.isEmpty() ? "(no reason given)" : reason, r -> new TreeMap<>())
            .merge(cls.substring(cls.lastIndexOf('.') + 1), 1, Integer::sum);
      }
    }
    System.out.println();
    if (reports.isEmpty()) {
      System.out.println("Skipped tests: no test reports from this run (did the build stop early?)");
      return;
    }
    System.out.printf(
        "Skipped tests: %d of %d in %d report(s) from this run%s%n",
        skipped, tests, reports.size(), skipped == 0 ? "" : ", by reason:");
    for (Map.Entry<String, Map<String, Integer>> e : byReason.entrySet()) {
      int count = e.getValue().values().stream().mapToInt(Integer::intValue).sum();
      List<String> classes = new ArrayList<>();
      e.getValue().forEach((cls, n) -> classes.add(n == 1 ? cls : cls + " x" + n));
      System.out.printf("  %3d  %s%n       (%s)%n", count, e.getKey(), String.join(", ", classes));
    }
  }

  /**
   * The skip's message: surefire writes a condition's reason as the {@code message} attribute, but
   * a failed assumption (with trimStackTrace off) as the element's text, a stack trace whose first
   * line is {@code org.opentest4j.TestAbortedException: Assumption failed: REASON}.
   */
  static String reason(Element skipped) {
    String reason = skipped.getAttribute("message").strip();
    if (reason.isEmpty()) {
      reason = skipped.getTextContent().strip().lines().findFirst().orElse("");
      int colon = reason.indexOf(": ");
      if (colon > 0 && reason.substring(0, colon).endsWith("Exception")) {
        reason = reason.substring(colon + 2);
      }
    }
    return reason.startsWith("Assumption failed: ")
        ? reason.substring("Assumption failed: ".length())
        : reason;
  }

  /** TEST-*.xml under ROOT/<module>/target/{surefire,failsafe}-reports, newer than {@code since}. */
  private static List<Path> reports(Path root, FileTime since) throws IOException {
    List<Path> found = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.sorted().toList()) {
        for (String dir : List.of("surefire-reports", "failsafe-reports")) {
          Path d = module.resolve("target").resolve(dir);
          if (!Files.isDirectory(d)) {
            continue;
          }
          try (Stream<Path> files = Files.list(d)) {
            for (Path f : files.sorted().toList()) {
              String name = f.getFileName().toString();
              if (name.startsWith("TEST-")
                  && name.endsWith(".xml")
                  && Files.getLastModifiedTime(f).compareTo(since) >= 0) {
                found.add(f);
              }
            }
          }
        }
      }
    }
    return found;
  }
}
