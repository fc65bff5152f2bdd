package dev.ddp4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a program under the real launcher in a child JVM ({@code java -cp <test classpath>
 * dev.ddp4j.launcher.LauncherMain --nproc-per-node=N ...}), as a user would, and reads what the
 * workers wrote.
 */
final class LaunchedJob {

  private LaunchedJob() {}

  record Result(int exitCode, String output) {}

  /**
   * Runs {@code program args} on {@code n} CPU workers; fails the test if it does not end within
   * the timeout.
   */
  static Result run(
      int n, Map<String, String> env, long timeoutSeconds, String program, String... args)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("java.class.path");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", cp, "dev.ddp4j.launcher.LauncherMain"));
    cmd.addAll(List.of("--nproc-per-node=" + n, "--master-port=0", "--classpath", cp, program));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("DDP4J_BACKEND", "cpu");
    pb.environment().putAll(env);
    Path log = Files.createTempFile("ddp4j-job", ".log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    try {
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new AssertionError(
            program
                + " on "
                + n
                + " ranks did not finish within "
                + timeoutSeconds
                + " s; output:\n"
                + Files.readString(log));
      }
      return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** Runs and asserts exit status 0, with the job's output in the failure message. */
  static String runOk(int n, Map<String, String> env, String program, String... args)
      throws Exception {
    Result r = run(n, env, 240, program, args);
    assertThat(r.exitCode()).as("exit status of %s; output:%n%s", program, r.output()).isZero();
    return r.output();
  }

  /**
   * The parameter snapshots a ParityWorker wrote: one float[] per step (index 0 = after the
   * broadcast).
   */
  static List<float[]> snapshots(Path file) throws IOException {
    List<float[]> out = new ArrayList<>();
    try (DataInputStream in = new DataInputStream(new FileInputStream(file.toFile()))) {
      while (in.available() > 0) {
        float[] p = new float[in.readInt()];
        for (int i = 0; i < p.length; i++) {
          p[i] = in.readFloat();
        }
        out.add(p);
      }
    }
    return out;
  }
}
