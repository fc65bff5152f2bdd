package dev.ddp4j.collectives.nccl;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the nccl backend looks for libnccl.so.2, and in which order, on a real file tree. */
class NcclLocatorTest {

  @TempDir Path dir;

  private Path wheel(Path sitePackages) throws Exception {
    Path lib =
        Files.createDirectories(sitePackages.resolve("nvidia/nccl/lib")).resolve("libnccl.so.2");
    Files.write(lib, new byte[] {0});
    return lib;
  }

  private Map<String, String> env() throws Exception {
    return new HashMap<>(NcclTestEnv.isolated(Files.createDirectories(dir.resolve("empty"))));
  }

  @Test
  void shouldTryOnlyTheLibraryTheVariableNames() throws Exception {
    Map<String, String> env = env();
    env.put("DDP4J_NCCL_LIBRARY", " /opt/nccl/lib/libnccl.so.2 ");
    env.put("VIRTUAL_ENV", dir.toString());
    wheel(dir.resolve("lib/python3.12/site-packages"));
    assertThat(NcclLocator.search(dev.ddp4j.spi.Settings.of(env)).candidates())
        .containsExactly(
            new NcclLocator.Candidate("/opt/nccl/lib/libnccl.so.2", "DDP4J_NCCL_LIBRARY"));
  }

  @Test
  void shouldTryTheLoaderThenTheWheelsOfPythonPathVirtualEnvAndConda() throws Exception {
    Path fromPythonPath = wheel(dir.resolve("pp"));
    Path fromVenv = wheel(dir.resolve("venv/lib/python3.11/site-packages"));
    Path fromConda = wheel(dir.resolve("conda/lib/python3.10/site-packages"));
    Files.createDirectories(dir.resolve("venv/lib/python3.11/dist-packages")); // no wheel in it
    Map<String, String> env = env();
    env.put("PYTHONPATH", dir.resolve("pp") + ":" + dir.resolve("missing"));
    env.put("VIRTUAL_ENV", dir.resolve("venv").toString());
    env.put("CONDA_PREFIX", dir.resolve("conda").toString());
    NcclLocator.Search s = NcclLocator.search(dev.ddp4j.spi.Settings.of(env));
    assertThat(s.candidates().subList(0, 4))
        .extracting(NcclLocator.Candidate::library)
        .containsExactly(
            "libnccl.so.2", fromPythonPath.toString(), fromVenv.toString(), fromConda.toString());
    assertThat(s.candidates().get(2).origin())
        .isEqualTo("NVIDIA's Python wheel in " + dir.resolve("venv/lib/python3.11/site-packages"));
    assertThat(s.pythonFolders()).contains(dir.resolve("venv/lib/python3.11/dist-packages"));
  }

  @Test
  void shouldLookUnderPyenvVersionsAndThePrefixOfEachPython3OnPath() throws Exception {
    Path pyenvLib = wheel(dir.resolve("pyenv/versions/3.11.9/lib/python3.11/site-packages"));
    Path bin = Files.createDirectories(dir.resolve("tools/bin"));
    Path python = Files.createFile(bin.resolve("python3"));
    python.toFile().setExecutable(true);
    Path toolsLib = wheel(dir.resolve("tools/lib/python3.9/site-packages"));
    Map<String, String> env = env();
    env.put("PYENV_ROOT", dir.resolve("pyenv").toString());
    env.put("PATH", dir.resolve("nothing") + ":" + bin);
    assertThat(NcclLocator.search(dev.ddp4j.spi.Settings.of(env)).candidates())
        .extracting(NcclLocator.Candidate::library)
        .contains(pyenvLib.toString(), toolsLib.toString());
  }
}
