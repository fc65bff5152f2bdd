package dev.ddp4j.launcher.bench;

import dev.ddp4j.launcher.JvmArgOption;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code launcher.jar bench}: starts {@code --nproc-per-node} rank JVMs on this machine, which time
 * one collective from {@code --min-bytes} to {@code --max-bytes} and print an nccl-tests-style
 * table (size, count, type, time, algbw, busbw, and a correctness check per size). The ranks start
 * and meet as the launcher's workers do ({@link LocalBenchRanks}).
 */
@Command(
    name = "bench",
    subcommands = BenchDdpCommand.class,
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Times a collective on this machine and prints bus bandwidth per size, like nccl-tests.",
      "busbw = algbw x 2(n-1)/n for allreduce, x (n-1)/n for allgather and reducescatter, x 1 for broadcast."
    })
public final class BenchCommand implements Callable<Integer> {

  @Option(
      names = "--nproc-per-node",
      paramLabel = "N",
      defaultValue = "2",
      description = "Ranks. Default: ${DEFAULT-VALUE}.")
  int ranks;

  @Option(
      names = "--backend",
      defaultValue = "cpu",
      description =
          "cpu, cuda, nccl (the machine's NCCL through the nccl backend) or auto. Default: ${DEFAULT-VALUE}.")
  String backend;

  @Option(
      names = "--op",
      defaultValue = "allreduce",
      description = "allreduce, broadcast, allgather or reducescatter. Default: ${DEFAULT-VALUE}.")
  String op;

  @Option(
      names = "--dtype",
      defaultValue = "float32",
      description = "float32, float64, int32 or int64. Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--redop",
      defaultValue = "sum",
      description = "sum, prod, min, max or avg. Default: ${DEFAULT-VALUE}.")
  String redop;

  @Option(
      names = "--root",
      defaultValue = "0",
      description = "Root rank of broadcast. Default: ${DEFAULT-VALUE}.")
  int root;

  @Option(
      names = {"--min-bytes", "-b"},
      defaultValue = "8",
      description = "Smallest size, e.g. 8, 64K, 1M. Default: ${DEFAULT-VALUE}.")
  String minBytes;

  @Option(
      names = {"--max-bytes", "-e"},
      defaultValue = "256M",
      description = "Largest size. Default: ${DEFAULT-VALUE}.")
  String maxBytes;

  @Option(
      names = {"--step-factor", "-f"},
      defaultValue = "2",
      description = "Size multiplier between rows. Default: ${DEFAULT-VALUE}.")
  int factor;

  @Option(
      names = {"--iters", "-n"},
      defaultValue = "0",
      description =
          "Timed calls per size; 0 picks about 1 GiB of traffic, 5 to 20000 calls. Default: ${DEFAULT-VALUE}.")
  long iterations;

  @Option(
      names = "--buffers",
      defaultValue = "plain",
      description =
          "cpu backend: plain (direct memory of each rank's own) or shared (ProcessGroup.allocateHost:"
              + " memory every rank of the node maps, read in place by large all-reduces)."
              + " Default: ${DEFAULT-VALUE}.")
  String buffers;

  @Mixin JvmArgOption jvmArgs = new JvmArgOption();

  /** Where rank 0's table goes: this process's stdout, or a file in tests. */
  ProcessBuilder.Redirect output = ProcessBuilder.Redirect.INHERIT;

  @Override
  public Integer call() throws IOException {
    BenchCollective.parse(op);
    if (!buffers.equals("plain") && !buffers.equals("shared")) {
      throw new IllegalArgumentException("--buffers=" + buffers + " (expected: plain or shared)");
    }
    if (ranks == 1) {
      // One rank's collective moves nothing (an in-place all-reduce is a no-op): its "bandwidth"
      // would be the size over a launch, printed as hundreds of TB/s.
      throw new IllegalArgumentException(
          "--nproc-per-node=1: a collective over one rank moves no data, so there is nothing to"
              + " measure (expected: 2 or more ranks; on one GPU, DDP4J_CUDA_SHARE_GPUS=1 lets"
              + " them share it under MPS)");
    }
    if (ranks < 1 || factor < 2) {
      throw new IllegalArgumentException(
          "--nproc-per-node=" + ranks + " --step-factor=" + factor + " (expected: >= 1 and >= 2)");
    }
    long min = parseBytes(minBytes);
    long max = parseBytes(maxBytes);
    LocalBenchRanks.requireUsable("bench", backend, "use --backend cpu or auto");
    List<String> args =
        List.of(
            op,
            dtype,
            redop,
            Integer.toString(root),
            Long.toString(min),
            Long.toString(max),
            Integer.toString(factor),
            Long.toString(iterations),
            buffers);
    return LocalBenchRanks.run(
        "ddp4j-bench",
        ranks,
        Duration.ofHours(2),
        new LocalBenchRanks.Ranks(
            backend,
            jvmArgs.values(),
            System.getProperty("java.class.path"),
            BenchWorker.class.getName(),
            args),
        r -> r == 0 ? output : ProcessBuilder.Redirect.INHERIT);
  }

  /** {@code 8}, {@code 64K}, {@code 1M}, {@code 2G} (powers of 1024). */
  static long parseBytes(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    long unit = 1;
    if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
      unit = t.endsWith("K") ? 1L << 10 : t.endsWith("M") ? 1L << 20 : 1L << 30;
      t = t.substring(0, t.length() - 1);
    }
    try {
      return Long.parseLong(t) * unit;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "size '" + text + "' (expected: bytes such as 8, 64K, 1M)");
    }
  }
}
