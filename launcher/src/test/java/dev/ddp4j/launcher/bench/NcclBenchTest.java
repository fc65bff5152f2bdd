package dev.ddp4j.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.ConfigException;
import dev.ddp4j.collectives.nccl.NcclLibrary;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench --backend nccl}: where NCCL or a GPU is missing it stops before any rank starts, in
 * one line saying why; on a GPU with NCCL it prints the same checked table as the cuda backend, one
 * process per GPU (one rank on a one-GPU machine: NCCL refuses two ranks on one GPU).
 */
class NcclBenchTest {

  @TempDir Path dir;

  private static Optional<String> ncclUnavailable() {
    Optional<String> gpu = CudaProbe.unavailableReason();
    return gpu.isPresent() ? gpu : NcclLibrary.unavailableReason();
  }

  @Test
  void shouldSayWhyWhenNcclCannotRunHere() {
    Optional<String> why = ncclUnavailable();
    assumeTrue(why.isPresent(), "this machine runs the nccl backend");
    assertThatThrownBy(() -> LocalBenchRanks.requireUsable("bench", "nccl", "use --backend cpu"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("bench: backend 'nccl' cannot run here: " + why.get() + " (use --backend cpu)")
        .hasMessageNotContaining("\n");
  }

  @GpuTest
  void shouldPrintACheckedRowPerSizeForEveryCollective() throws Exception {
    Optional<String> why = ncclUnavailable();
    assumeTrue(why.isEmpty(), () -> "needs NCCL: " + why.orElse(""));
    int ranks = Math.min(2, CudaProbe.gpus().size());
    for (String op : List.of("allreduce", "broadcast", "allgather", "reducescatter")) {
      BenchCommand bench = new BenchCommand();
      Path table = dir.resolve(op + ".txt");
      bench.output = ProcessBuilder.Redirect.to(table.toFile());
      int status =
          new CommandLine(bench)
              .execute(
                  "--nproc-per-node=" + ranks,
                  "--backend",
                  "nccl",
                  "--op",
                  op,
                  "-b",
                  "16",
                  "-e",
                  "256M",
                  "-f",
                  "16",
                  "-n",
                  "20",
                  "--root",
                  Integer.toString(ranks - 1));
      List<String> lines = Files.readAllLines(table);
      List<String> rows = lines.stream().filter(l -> !l.startsWith("#")).toList();
      assertThat(status).as(String.join("\n", lines)).isZero();
      assertThat(lines.get(0)).contains("backend nccl");
      assertThat(rows).hasSize(7);
      assertThat(rows).allSatisfy(r -> assertThat(r).endsWith("OK"));
    }
  }
}
