package dev.ddp4j.bench.groupcreation;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Group-creation benchmark (not a test): runs {@link GroupCreationProbe} under {@code java -jar
 * LAUNCHER --nproc-per-node=N --standalone} for each rank count, and, in the same round right after
 * it, under an older launcher jar, so that both builds meet the same load on a shared machine; then
 * prints the medians per rank count and their ratio as a Markdown table. Plain Java (no Maven, no
 * product classes: the probe gets those from each launcher jar), so a bundled JRE runs it. Run with
 * {@code bench/group-creation.sh}. Arguments: JAVA LAUNCHER_JAR PROBE_CLASSPATH ROUNDS OLD_JAR|-
 * RANKS...; the job's environment (DDP4J_BACKEND, DDP4J_CUDA_SHARE_GPUS ...) passes to the workers.
 */
public final class GroupCreationBenchmark {

  private static final long RUN_TIMEOUT_S = 600;

  private GroupCreationBenchmark() {}

  /** What the probe's line said for one run. */
  private record Run(double creationMs, double maxInitMs, String backend) {}

  public static void main(String[] args) throws Exception {
    String java = args[0];
    String launcher = Path.of(args[1]).toAbsolutePath().toString();
    String probe = args[2];
    int rounds = Integer.parseInt(args[3]);
    String old = args[4].equals("-") ? null : Path.of(args[4]).toAbsolutePath().toString();
    int[] ranks = Arrays.stream(args, 5, args.length).mapToInt(Integer::parseInt).toArray();
    double[][] created = new double[ranks.length][rounds];
    double[][] createdOld = new double[ranks.length][rounds];
    double[][] init = new double[ranks.length][rounds];
    double[][] initOld = new double[ranks.length][rounds];
    String backend = "?";
    for (int i = -1; i < rounds; i++) { // round -1 warms the page cache and is not counted
      for (int k = 0; k < ranks.length; k++) {
        if (i < 0 && k > 0) {
          break;
        }
        Run a = run(java, launcher, probe, ranks[k]);
        Run b = old == null ? null : run(java, old, probe, ranks[k]);
        backend = a.backend();
        System.out.printf(
            Locale.ROOT,
            "round %d ranks %d: new %.1f ms (max init %.1f)%s%n",
            i,
            ranks[k],
            a.creationMs(),
            a.maxInitMs(),
            b == null
                ? ""
                : String.format(
                    Locale.ROOT, ", old %.1f ms (max init %.1f)", b.creationMs(), b.maxInitMs()));
        if (i >= 0) {
          created[k][i] = a.creationMs();
          init[k][i] = a.maxInitMs();
          createdOld[k][i] = b == null ? Double.NaN : b.creationMs();
          initOld[k][i] = b == null ? Double.NaN : b.maxInitMs();
        }
      }
    }
    System.out.printf("%nbackend %s, %d rounds, medians in ms%n%n", backend, rounds);
    System.out.println(
        "| ranks | before: group creation | after: group creation | ratio after/before"
            + " | before: max init | after: max init |");
    System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for (int k = 0; k < ranks.length; k++) {
      double mb = median(createdOld[k]);
      double ma = median(created[k]);
      System.out.printf(
          Locale.ROOT,
          "| %d | %.1f | %.1f | %.2f | %.1f | %.1f |%n",
          ranks[k],
          mb,
          ma,
          ma / mb,
          median(initOld[k]),
          median(init[k]));
    }
  }

  private static Run run(String java, String launcherJar, String probe, int n) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-jar",
                launcherJar,
                "--nproc-per-node=" + n,
                "--standalone",
                "--classpath",
                probe,
                GroupCreationProbe.class.getName()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Run found = null;
    List<String> tail = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        int at = line.indexOf(GroupCreationProbe.MARK);
        if (at >= 0) {
          found = parse(line.substring(at));
        }
        tail.add(line);
        if (tail.size() > 20) {
          tail.remove(0);
        }
      }
    }
    if (!p.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(
          n + " ranks under " + launcherJar + " ran past " + RUN_TIMEOUT_S + " s");
    }
    if (p.exitValue() != 0 || found == null) {
      throw new IllegalStateException(
          n
              + " ranks under "
              + launcherJar
              + " exited "
              + p.exitValue()
              + " without a '"
              + GroupCreationProbe.MARK
              + "' line; its last lines:\n"
              + String.join("\n", tail));
    }
    return found;
  }

  private static Run parse(String line) {
    double creation = 0;
    double init = 0;
    String backend = "?";
    for (String f : line.split(" ")) {
      if (f.startsWith("creation_ms=")) {
        creation = Double.parseDouble(f.substring("creation_ms=".length()));
      } else if (f.startsWith("max_init_ms=")) {
        init = Double.parseDouble(f.substring("max_init_ms=".length()));
      } else if (f.startsWith("backend=")) {
        backend = f.substring("backend=".length());
      }
    }
    return new Run(creation, init, backend);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
}
