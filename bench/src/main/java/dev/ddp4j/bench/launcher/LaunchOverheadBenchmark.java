package dev.ddp4j.bench.launcher;

import dev.ddp4j.collectives.store.StoreSecret;
import dev.ddp4j.collectives.store.StoreServer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Launcher overhead benchmark (not a test): wall time of {@code java -jar launcher.jar
 * --nproc-per-node=N PROGRAM} against N plain {@code java} runs of the same program started in
 * parallel (with a store this JVM hosts), alternating the two, and the ratio of their medians. Run
 * with {@code bench/launcher-overhead.sh}. Arguments: LAUNCHER_JAR CLASSPATH MAIN_CLASS [N]
 * [ROUNDS] [OTHER_LAUNCHER_JAR]; with the last, an older build of the launcher is timed in the same
 * rounds too, so a change's effect is measured side by side on a machine whose load varies.
 */
public final class LaunchOverheadBenchmark {

  private LaunchOverheadBenchmark() {}

  public static void main(String[] args) throws Exception {
    String launcherJar = Path.of(args[0]).toAbsolutePath().toString();
    String classpath = args[1];
    String main = args[2];
    int n = args.length > 3 ? Integer.parseInt(args[3]) : 4;
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
    // The launcher starts its workers with its own java; time both sides with this one.
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String otherJar = args.length > 5 ? Path.of(args[5]).toAbsolutePath().toString() : null;
    long[] launched = new long[rounds];
    long[] other = new long[rounds];
    long[] plain = new long[rounds];
    for (int i = -1; i < rounds; i++) { // round -1 warms the page cache and is not counted
      long a = timeLauncher(java, launcherJar, classpath, main, n);
      long o = otherJar == null ? 0 : timeLauncher(java, otherJar, classpath, main, n);
      long b = timePlain(java, launcherJar, classpath, main, n);
      if (i >= 0) {
        launched[i] = a;
        other[i] = o;
        plain[i] = b;
      }
    }
    double ml = median(launched);
    double mp = median(plain);
    System.out.printf(
        "nproc=%d, %d rounds: launcher median %.3f s %s, plain java x%d median %.3f s %s, ratio %.2f%n",
        n, rounds, ml, secs(launched), n, mp, secs(plain), ml / mp);
    if (otherJar != null) {
      double mo = median(other);
      System.out.printf(
          "other launcher %s: median %.3f s %s, ratio %.2f; this launcher / other %.2f%n",
          otherJar, mo, secs(other), mo / mp, ml / mo);
    }
  }

  private static long timeLauncher(String java, String jar, String cp, String main, int n)
      throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    Process p =
        new ProcessBuilder(
                java, "-jar", jar, "--nproc-per-node=" + n, "--standalone", "--classpath", cp, main)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    check(p, "launcher");
    return System.nanoTime() - t0;
  }

  private static long timePlain(String java, String jar, String cp, String main, int n)
      throws IOException, InterruptedException {
    String secret = StoreSecret.random();
    long t0 = System.nanoTime();
    try (StoreServer server = StoreServer.start("127.0.0.1", 0, secret)) {
      List<Process> ps = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        ProcessBuilder pb =
            new ProcessBuilder(java, "-cp", cp + File.pathSeparator + jar, main)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        Map<String, String> env = pb.environment();
        env.put("RANK", Integer.toString(r));
        env.put("WORLD_SIZE", Integer.toString(n));
        env.put("MASTER_ADDR", "127.0.0.1");
        env.put("MASTER_PORT", Integer.toString(server.port()));
        env.put(StoreSecret.SECRET_VAR, secret);
        env.put("OMP_NUM_THREADS", "1");
        ps.add(pb.start());
      }
      for (Process p : ps) {
        check(p, "plain java worker");
      }
    }
    return System.nanoTime() - t0;
  }

  private static void check(Process p, String what) throws InterruptedException {
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(what + " failed or hung");
    }
  }

  private static double median(long[] ns) {
    long[] s = ns.clone();
    Arrays.sort(s);
    return s[s.length / 2] / 1e9;
  }

  private static String secs(long[] ns) {
    StringBuilder b = new StringBuilder("[");
    for (long v : ns) {
      b.append(b.length() > 1 ? " " : "").append(String.format("%.2f", v / 1e9));
    }
    return b.append("]").toString();
  }
}
