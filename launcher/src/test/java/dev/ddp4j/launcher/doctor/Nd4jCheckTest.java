package dev.ddp4j.launcher.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The nd4j check against ND4J's natives jars as Maven has them, with a small CUDA library. */
class Nd4jCheckTest {

  @TempDir Path jars;

  /** Where the check inflates libnd4jcuda.so; empty again after every check. */
  @TempDir Path tmp;

  private static final GpuInventory NO_GPU =
      new GpuInventory(List.of(), "", null, "", "no NVIDIA driver (/dev/nvidiactl is absent)");

  @AfterEach
  void theInflatedLibraryShouldBeGone() throws IOException {
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left).as("files the check left in java.io.tmpdir").isEmpty();
    }
  }

  @Test
  void withoutAClassPathShouldSayNothingWasCheckedAndHow() {
    Finding f = only(check(gpus(90), null));
    assertThat(f.status()).isEqualTo(Finding.Status.OK);
    assertThat(f.saw()).contains("no program class path given", "doctor --classpath=PATH");
  }

  @Test
  void aCudaLibraryWithoutHopperKernelsShouldFailOnAnH100NamingBothSides() {
    Path cuda = Nd4jJars.cuda(jars, Nd4jJars.fixtureLibrary());
    Finding f = only(check(gpus(90, 90), cuda.toString()));
    assertThat(f.status()).isEqualTo(Finding.Status.FAIL);
    assertThat(f.line())
        .contains(
            "nd4j-cuda-11.6 1.0.0-M2.1 (CUDA) in " + Nd4jJars.CUDA_JAR,
            "cannot run on GPU 0,1 (NVIDIA Test GPU, compute capability 9.0)",
            "machine code for sm_75, sm_86 and no PTX",
            "-- fix: train on ND4J's CPU backend: build without -Pnd4j-cuda",
            "the cuda group then takes the gradients through its host half");
  }

  @Test
  void aCudaLibraryWithAmpereKernelsShouldPassOnAnAmpereGpu() {
    Path cuda = Nd4jJars.cuda(jars, Nd4jJars.fixtureLibrary());
    Finding f = only(check(gpus(86), cuda.toString()));
    assertThat(f.status()).isEqualTo(Finding.Status.OK);
    assertThat(f.saw()).contains("runs on every GPU here", "sm_75, sm_86");
  }

  @Test
  void theCpuBackendShouldPassWithAndWithoutGpus() {
    Path cpu = Nd4jJars.cpu(jars);
    Finding alone = only(check(NO_GPU, cpu.toString()));
    assertThat(alone.status()).isEqualTo(Finding.Status.OK);
    assertThat(alone.saw())
        .isEqualTo(
            "ND4J backend on the class path: nd4j-native 1.0.0-M2.1 (CPU) in "
                + Nd4jJars.NATIVE_JAR
                + ": the model trains on the CPU");
    Finding withGpu = only(check(gpus(90), cpu.toString()));
    assertThat(withGpu.status()).isEqualTo(Finding.Status.OK);
    assertThat(withGpu.line())
        .contains(
            "the model trains on the CPU, its gradients go through the cuda group's host half");
    Finding cpuGroup =
        only(
            Nd4jCheck.check(
                gpus(90),
                cpu.toString(),
                dev.ddp4j.spi.Settings.of(Map.of("DDP4J_BACKEND", "cpu")),
                tmp));
    assertThat(cpuGroup.status()).isEqualTo(Finding.Status.OK);
  }

  @Test
  void withBothBackendsTheCudaOneShouldBeCheckedAsNd4jPrefersIt() {
    Path cpu = Nd4jJars.cpu(jars);
    Path cuda = Nd4jJars.cuda(jars, Nd4jJars.fixtureLibrary());
    Finding f = only(check(gpus(90), cpu + File.pathSeparator + cuda));
    assertThat(f.status()).isEqualTo(Finding.Status.FAIL);
    assertThat(f.saw())
        .startsWith("ND4J backends on the class path: nd4j-native 1.0.0-M2.1 (CPU) in ")
        .contains("ND4J prefers the CUDA one", "compute capability 9.0", "sm_75, sm_86");
    assertThat(only(check(gpus(86), jars + File.separator + "*")).status())
        .as("the same two jars through dir/*")
        .isEqualTo(Finding.Status.OK);
  }

  @Test
  void theCudaBackendWithoutAGpuShouldWarnThatItNeedsOne() {
    Path cuda = Nd4jJars.cuda(jars, Nd4jJars.fixtureLibrary());
    Finding f = only(check(NO_GPU, cuda.toString()));
    assertThat(f.status()).isEqualTo(Finding.Status.WARN);
    assertThat(f.line())
        .contains(
            "there is no GPU (no NVIDIA driver",
            "ND4J's CUDA backend needs one",
            "fix: build without -Pnd4j-cuda");
  }

  @Test
  void aClassPathWithoutNd4jShouldHaveNothingToCheck() throws IOException {
    Path classes = Files.createDirectories(jars.resolve("classes/com/acme"));
    Path app = Nd4jJars.jar(jars.resolve("app.jar"), Map.of("com/acme/Train.class", new byte[1]));
    Finding f = only(check(gpus(90), classes + File.pathSeparator + app));
    assertThat(f.status()).isEqualTo(Finding.Status.OK);
    assertThat(f.saw()).isEqualTo("no ND4J on the class path (2 entries): nothing to check");
  }

  @Test
  void nd4jWithoutANativesJarShouldFailAndNameTheClassesJar() {
    Path api =
        Nd4jJars.jar(
            jars.resolve("nd4j-api-1.0.0-M2.1.jar"),
            Map.of("org/nd4j/linalg/factory/Nd4j.class", new byte[1]));
    Path classes =
        Nd4jJars.jar(
            jars.resolve("nd4j-cuda-11.6-1.0.0-M2.1.jar"),
            Map.of("org/nd4j/linalg/jcublas/JCublasBackend.class", new byte[1]));
    List<Finding> f = check(gpus(90), api + File.pathSeparator + classes);
    assertThat(f)
        .extracting(Finding::status)
        .containsExactly(Finding.Status.FAIL, Finding.Status.WARN);
    assertThat(f.get(0).saw()).contains("ND4J is on the class path but no backend");
    assertThat(f.get(1).line())
        .contains(
            "nd4j-cuda-11.6-1.0.0-M2.1.jar is ND4J's nd4j-cuda by its name but holds no libnd4jcuda.so",
            "classifier linux-x86_64");
  }

  @Test
  void aLibraryThatIsNoElfFileShouldWarnAndStillBeDeleted() {
    Path cuda = Nd4jJars.cuda(jars, Nd4jJars.bytes("not a library"));
    Finding f = only(check(gpus(90), cuda.toString()));
    assertThat(f.status()).isEqualTo(Finding.Status.WARN);
    assertThat(f.line())
        .contains("libnd4jcuda.so cannot be read: not a little-endian ELF64 file", "unzip -t");
  }

  @Test
  void aFolderOnTheClassPathShouldBeReadInPlace() throws IOException {
    Path folder = jars.resolve("exploded");
    Path lib = folder.resolve(Nd4jJars.CUDA_LIBRARY);
    Files.createDirectories(lib.getParent());
    Files.write(lib, Nd4jJars.fixtureLibrary());
    Finding f = only(check(gpus(90), folder.toString()));
    assertThat(f.line())
        .startsWith("FAIL")
        .contains("nd4j-cuda (CUDA) in " + folder, "sm_75, sm_86");
  }

  @Test
  void aMissingEntryShouldFailNamingIt() {
    Finding f = only(check(gpus(90), jars.resolve("nope.jar").toString()));
    assertThat(f.line())
        .startsWith("FAIL")
        .contains("--classpath entry " + jars.resolve("nope.jar"));
  }

  private List<Finding> check(GpuInventory inv, String classpath) {
    return Nd4jCheck.check(inv, classpath, dev.ddp4j.spi.Settings.empty(), tmp);
  }

  private static Finding only(List<Finding> findings) {
    assertThat(findings).hasSize(1);
    return findings.get(0);
  }

  /** GPUs 0, 1, ... of these compute capabilities (x 10). */
  private static GpuInventory gpus(int... sm) {
    List<GpuInventory.Gpu> out = new ArrayList<>();
    for (int i = 0; i < sm.length; i++) {
      out.add(new GpuInventory.Gpu(i, "NVIDIA Test GPU", "0000:0" + i + ":00.0", sm[i]));
    }
    return new GpuInventory(out, "550.54.15", null, "nvidia-smi", "");
  }
}
