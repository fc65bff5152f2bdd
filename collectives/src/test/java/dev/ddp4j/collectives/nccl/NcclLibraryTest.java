package dev.ddp4j.collectives.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading libnccl.so.2 for real in a fresh JVM each (the binding is once per process): the one-line
 * error that lists where it looked when there is none, the variable named when it points nowhere, a
 * library too old refused, and, with the test stand-in built by gcc (skipped without gcc), a
 * library found through DDP4J_NCCL_LIBRARY and through a Python wheel's layout.
 */
class NcclLibraryTest {

  @TempDir Path dir;

  private String probe(Map<String, String> env) throws Exception {
    LocalRanks.Result r =
        LocalRanks.run(
            1,
            NcclTestMain.class.getName(),
            List.of("probe"),
            List.of(),
            Duration.ofMinutes(1),
            env);
    assertThat(r.exitCodes()).as(r.outputs().get(0)).containsOnly(0);
    return r.outputs().get(0);
  }

  private Path empty() throws Exception {
    return Files.createDirectories(dir.resolve("empty"));
  }

  private Path fake() throws Exception {
    Optional<Path> lib = FakeNccl.build(Files.createDirectories(dir.resolve("fake")));
    assumeTrue(lib.isPresent(), "needs gcc to build the NCCL stand-in");
    return lib.get();
  }

  @Test
  void shouldListWhereItLookedAndTheFixWhenThereIsNoNccl() throws Exception {
    Optional<String> found = NcclTestEnv.machineNccl(empty());
    assumeTrue(found.isEmpty(), () -> "this machine has an NCCL: " + found.orElse(""));
    String out = probe(NcclTestEnv.isolated(empty()));
    assertThat(out.lines().filter(l -> l.startsWith("unavailable: ")).toList())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("DDP4J_NCCL_LIBRARY is unset")
                    .contains("libnccl.so.2 is not on the dynamic loader's path (LD_LIBRARY_PATH=")
                    .contains("no nvidia/nccl/lib/libnccl.so.2 in the Python package folders")
                    .contains("fix: install NCCL 2.14 or newer")
                    .contains("pip install nvidia-nccl-cu12")
                    .contains("DDP4J_NCCL_LIBRARY=/path/to/libnccl.so.2"));
  }

  @Test
  void shouldNameTheVariableWhenItsLibraryDoesNotLoad() throws Exception {
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(empty()));
    env.put("DDP4J_NCCL_LIBRARY", dir.resolve("nowhere/libnccl.so.2").toString());
    assertThat(probe(env))
        .contains(
            "unavailable: no usable NCCL library: DDP4J_NCCL_LIBRARY=" + dir.resolve("nowhere"))
        .contains("did not load")
        .doesNotContain("is unset");
  }

  @Test
  void shouldRefuseAnNcclOlderThanTheMinimum() throws Exception {
    Path lib = fake();
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(empty()));
    env.put("DDP4J_NCCL_LIBRARY", lib.toString());
    env.put("FAKE_NCCL_VERSION", "21203");
    assertThat(probe(env))
        .contains("unavailable: no usable NCCL library: NCCL 2.12.3 at " + lib.toRealPath())
        .contains("is too old (the nccl backend needs 2.14.0 or newer");
  }

  @Test
  void shouldLoadTheLibraryThatDdp4jNcclLibraryNames() throws Exception {
    Path lib = fake();
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(empty()));
    env.put("DDP4J_NCCL_LIBRARY", lib.toString());
    assertThat(probe(env)).contains("loaded 2.28.3 " + lib.toRealPath());
  }

  @Test
  void shouldFindTheLibraryOfAPythonWheel() throws Exception {
    Optional<String> found = NcclTestEnv.machineNccl(empty());
    assumeTrue(found.isEmpty(), () -> "this machine has an NCCL: " + found.orElse(""));
    Path venv = dir.resolve("venv");
    Path wheelLib =
        Files.createDirectories(venv.resolve("lib/python3.11/site-packages/nvidia/nccl/lib"));
    Files.copy(fake(), wheelLib.resolve("libnccl.so.2"));
    Map<String, String> env = new HashMap<>(NcclTestEnv.isolated(empty()));
    env.put("VIRTUAL_ENV", venv.toString());
    assertThat(probe(env))
        .contains("loaded 2.28.3 " + wheelLib.resolve("libnccl.so.2").toRealPath());
  }
}
