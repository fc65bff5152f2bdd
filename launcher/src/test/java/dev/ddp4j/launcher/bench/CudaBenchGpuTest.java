package dev.ddp4j.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.testing.GpuTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench --backend cuda} on two real GPUs: every collective prints a checked row per size,
 * from 16 B to 256 MiB, where every collective's per-rank piece is larger than a scratch slot (119
 * MiB on 2 GPUs), so it runs as several kernel launches.
 */
class CudaBenchGpuTest {

  @TempDir Path dir;

  @GpuTest
  void shouldPrintACheckedRowPerSizeForEveryCollectiveOnTwoGpus() throws Exception {
    assumeTrue(CudaProbe.gpus().size() >= 2, "needs 2 GPUs");
    for (String op : List.of("allreduce", "broadcast", "allgather", "reducescatter")) {
      BenchCommand bench = new BenchCommand();
      Path table = dir.resolve(op + ".txt");
      bench.output = ProcessBuilder.Redirect.to(table.toFile());
      int status =
          new CommandLine(bench)
              .execute(
                  "--nproc-per-node=2",
                  "--backend",
                  "cuda",
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
                  "1");
      List<String> lines = Files.readAllLines(table);
      List<String> rows = lines.stream().filter(l -> !l.startsWith("#")).toList();
      assertThat(status).as(String.join("\n", lines)).isZero();
      assertThat(lines.get(0)).contains("backend cuda");
      assertThat(rows).hasSize(7);
      assertThat(rows).allSatisfy(r -> assertThat(r).endsWith("OK"));
      assertThat(rows.get(rows.size() - 1).trim()).startsWith("268435456");
    }
  }
}
