package dev.ddp4j.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A launcher started as its own JVM by a test, with its console lines collected as they come. */
final class LauncherRun implements AutoCloseable {

  /** Options that make the many small test JVMs start faster on a 2-core machine. */
  static final List<String> FAST_JVM =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx256m");

  final Process process;
  final List<String> lines = new CopyOnWriteArrayList<>();
  private final List<Thread> readers = new ArrayList<>();

  private LauncherRun(Process p) {
    this.process = p;
    readers.add(read(p.getInputStream()));
    readers.add(read(p.getErrorStream()));
  }

  static LauncherRun start(Map<String, String> env, String... args) {
    return start(List.of(), env, args);
  }

  /** A launcher run under {@code prefix}, e.g. {@code ip netns exec NS}. */
  static LauncherRun start(List<String> prefix, Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(FAST_JVM);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(LauncherMain.class.getName());
    for (String j : FAST_JVM) {
      cmd.add("--jvm-arg=" + j);
    }
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("OMP_NUM_THREADS");
    pb.environment().putAll(env);
    try {
      return new LauncherRun(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static LauncherRun start(String... args) {
    return start(Map.of(), args);
  }

  private Thread read(InputStream in) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // process gone
              }
            });
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** The exit status, waiting up to {@code timeout}; fails the test with the output if it hangs. */
  int exitCode(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(
          "launcher still running after " + timeout + "; output:\n" + output());
    }
    for (Thread t : readers) {
      t.join(5000);
    }
    return process.exitValue();
  }

  String output() {
    return String.join("\n", lines);
  }

  /** Worker pids printed as {@code pid=N}. */
  List<Long> workerPids() {
    List<Long> pids = new ArrayList<>();
    Pattern p = Pattern.compile("pid=(\\d+)");
    for (String l : lines) {
      Matcher m = p.matcher(l);
      if (m.find()) {
        pids.add(Long.parseLong(m.group(1)));
      }
    }
    return pids;
  }

  static boolean allDead(List<Long> pids) {
    return pids.stream()
        .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
  }

  @Override
  public void close() {
    // Workers of a killed launcher are no longer its descendants: stop them by pid as well.
    for (Long pid : workerPids()) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
