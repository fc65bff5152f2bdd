package dev.ddp4j.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The bench starts real rank processes and prints one checked row per size. */
class BenchCommandTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} ranks, {1}")
  @CsvSource({
    "2, allreduce, sum",
    "3, reducescatter, max",
    "3, allgather, sum",
    "2, broadcast, sum"
  })
  void shouldPrintACheckedRowPerSize(int ranks, String op, String redop) throws Exception {
    BenchCommand bench = new BenchCommand();
    Path table = dir.resolve("table.txt");
    bench.output = ProcessBuilder.Redirect.to(table.toFile());
    int status =
        new CommandLine(bench)
            .execute(
                "--nproc-per-node=" + ranks,
                "--op",
                op,
                "--redop",
                redop,
                "-b",
                "8",
                "-e",
                "64K",
                "-n",
                "20",
                "--root",
                "1");
    List<String> rows = Files.readAllLines(table).stream().filter(l -> !l.startsWith("#")).toList();
    assertThat(status).as(String.join("\n", Files.readAllLines(table))).isZero();
    assertThat(rows).hasSizeGreaterThanOrEqualTo(12);
    assertThat(rows).allSatisfy(r -> assertThat(r).endsWith("OK"));
    assertThat(rows.get(rows.size() - 1).trim()).startsWith(ranks == 2 ? "65536" : "655");
    boolean inPlace = op.equals("allreduce") || op.equals("broadcast");
    assertThat(Files.readAllLines(table).get(0))
        .endsWith(inPlace ? ", in place" : ", out of place");
  }

  @org.junit.jupiter.api.Test
  void shouldRefuseOneRankInOneLineAsThereIsNothingToMeasure() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream saved = System.err;
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    int status;
    try {
      status = dev.ddp4j.launcher.LauncherMain.run("bench", "--nproc-per-node=1");
    } finally {
      System.setErr(saved);
    }
    String text = err.toString(java.nio.charset.StandardCharsets.UTF_8).strip();
    assertThat(status).isEqualTo(2);
    assertThat(text)
        .contains("--nproc-per-node=1: a collective over one rank moves no data")
        .contains("expected: 2 or more ranks")
        .doesNotContain("\tat ");
  }

  @org.junit.jupiter.api.Test
  void shouldParseSizesWithBinarySuffixes() {
    assertThat(BenchCommand.parseBytes("8")).isEqualTo(8);
    assertThat(BenchCommand.parseBytes("64K")).isEqualTo(65536);
    assertThat(BenchCommand.parseBytes("256m")).isEqualTo(256L << 20);
  }
}
