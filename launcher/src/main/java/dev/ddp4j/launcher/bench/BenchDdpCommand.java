package dev.ddp4j.launcher.bench;

import dev.ddp4j.launcher.JvmArgOption;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code launcher.jar bench ddp}: starts one rank JVM per GPU running the bench module's synthetic
 * GPU model ({@code dev.ddp4j.bench.ddp.SyntheticDdpBench}) on the cuda backend, which prints the
 * step time with and without ddp-runtime's device bucket engine and the overhead. The launcher
 * depends on neither module (measuring code and ddp-runtime stay out of launcher.jar), so the
 * worker class is found by name on the launcher's class path plus {@code --classpath}; the GPU
 * bundle's ddp/ddp-gpu-run.sh passes ddp-runtime.jar and ddp-bench.jar there.
 */
@Command(
    name = "ddp",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Times DDP training steps of a synthetic GPU model of known pace (spin-kernel backward per layer),",
      "with and without the device bucket engine's all-reduce, and prints the overhead."
    })
public final class BenchDdpCommand implements Callable<Integer> {

  static final String WORKER = "dev.ddp4j.bench.ddp.SyntheticDdpBench";

  @Option(
      names = "--nproc-per-node",
      paramLabel = "N",
      defaultValue = "2",
      description = "Ranks, one per GPU. Default: ${DEFAULT-VALUE}.")
  int ranks;

  @Option(
      names = "--layers",
      required = true,
      description = "Parameters per layer: SIZE or COUNTxSIZE, comma separated (8x16.75M).")
  String layers;

  @Option(
      names = "--backward-us",
      required = true,
      description = "Backward time in us: one total (spread by layer size) or one per layer.")
  String backwardUs;

  @Option(
      names = "--steps",
      defaultValue = "0",
      description = "Timed steps per mode; 0 picks about 2 s. Default: ${DEFAULT-VALUE}.")
  int steps;

  @Option(
      names = "--trace",
      paramLabel = "PREFIX",
      description = "Write a GPU-time Chrome trace of one step per rank to PREFIX.rank<R>.json.")
  String trace;

  @Option(
      names = "--first-bucket-mb",
      paramLabel = "MIB",
      defaultValue = "1",
      description = "Cap of the first bucket in MiB. Default: ${DEFAULT-VALUE}.")
  String firstBucketMb;

  @Option(
      names = "--bucket-cap-mb",
      paramLabel = "MIB",
      defaultValue = "25",
      description = "Cap of every other bucket in MiB. Default: ${DEFAULT-VALUE}.")
  String bucketCapMb;

  @Option(
      names = "--comm-priority",
      paramLabel = "P",
      defaultValue = "highest",
      description =
          "Priority of the all-reduce stream: highest or normal. Default: ${DEFAULT-VALUE}.")
  String commPriority;

  @Option(
      names = "--classpath",
      paramLabel = "PATH",
      description =
          "Where ddp-runtime's and the bench module's classes are, if not on the launcher's class path.")
  String classpath;

  @Mixin JvmArgOption jvmArgs = new JvmArgOption();

  @Override
  public Integer call() throws IOException {
    if (ranks < 1) {
      throw new IllegalArgumentException("--nproc-per-node=" + ranks + " (expected: >= 1)");
    }
    String cp =
        System.getProperty("java.class.path")
            + (classpath == null ? "" : File.pathSeparator + classpath);
    if (!workerOn(cp)) {
      throw new IllegalArgumentException(
          "bench ddp runs "
              + WORKER
              + " from the bench module, which is not on the class path "
              + cp
              + " (expected: --classpath ddp-runtime.jar:ddp-bench.jar; the GPU bundle's ddp/ folder"
              + " has both)");
    }
    LocalBenchRanks.requireUsable(
        "bench ddp", "cuda", "bench ddp needs a machine with an NVIDIA GPU and driver");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--layers",
                layers,
                "--backward-us",
                backwardUs,
                "--steps",
                Integer.toString(steps),
                "--first-bucket-mb",
                firstBucketMb,
                "--bucket-cap-mb",
                bucketCapMb,
                "--comm-priority",
                commPriority));
    if (trace != null) {
      args.addAll(List.of("--trace", trace));
    }
    return LocalBenchRanks.run(
        "ddp4j-bench-ddp",
        ranks,
        Duration.ofHours(1),
        new LocalBenchRanks.Ranks("cuda", jvmArgs.values(), cp, WORKER, args),
        r -> r == 0 ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.DISCARD);
  }

  /** Whether the worker class is in one of the class path's entries (jars or folders). */
  static boolean workerOn(String cp) throws IOException {
    String entry = WORKER.replace('.', '/') + ".class";
    for (String part : cp.split(File.pathSeparator)) {
      Path p = Path.of(part);
      if (Files.isDirectory(p) && Files.exists(p.resolve(entry))) {
        return true;
      }
      if (Files.isRegularFile(p)) {
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(p.toFile())) {
          if (zip.getEntry(entry) != null) {
            return true;
          }
        } catch (java.util.zip.ZipException notAJar) {
          // not a jar: cannot hold the class
        }
      }
    }
    return false;
  }
}
