package dev.ddp4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.launcher.workers.BarrierWorker;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgramResolverTest {

  @TempDir Path tmp;

  @Test
  void aSimpleNameShouldBeFoundOnTheLaunchersClasspath() {
    ProgramResolver.Program p =
        ProgramResolver.resolve("BarrierWorker", null, System.getProperty("java.class.path"));
    assertThat(p.mainClass()).isEqualTo(BarrierWorker.class.getName());
  }

  @Test
  void aSimpleNameShouldBeFoundInAUserJarListedFirst() throws IOException {
    Path jar = jar("app.jar", null, "com/acme/Train.class", "com/acme/Train$Inner.class");
    ProgramResolver.Program p = ProgramResolver.resolve("Train", jar.toString(), "");
    assertThat(p.mainClass()).isEqualTo("com.acme.Train");
    assertThat(p.classpath()).containsExactly(jar.toString());
  }

  @Test
  void anAmbiguousSimpleNameShouldListTheCandidates() throws IOException {
    Path a = tmp.resolve("a");
    Files.createDirectories(a.resolve("x"));
    Files.createFile(a.resolve("x/Train.class"));
    Path b = jar("b.jar", null, "y/Train.class");
    assertThatThrownBy(() -> ProgramResolver.resolve("Train", a + ":" + b, ""))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("ambiguous: [x.Train, y.Train]");
  }

  @Test
  void aClassWithoutMainShouldNotMakeTheNameAmbiguous() {
    // dev.ddp4j.collectives.store.StoreBarrier (a helper) and the test worker below share a name.
    ProgramResolver.Program p =
        ProgramResolver.resolve("StoreBarrier", null, System.getProperty("java.class.path"));
    assertThat(p.mainClass()).isEqualTo("dev.ddp4j.launcher.workers.StoreBarrier");
  }

  @Test
  void anApplicationJarShouldRunItsMainClass() throws IOException {
    Path jar = jar("runnable.jar", "com.acme.Main", "com/acme/Main.class");
    ProgramResolver.Program p = ProgramResolver.resolve(jar.toString(), null, "/launcher.jar");
    assertThat(p.mainClass()).isEqualTo("com.acme.Main");
    assertThat(p.classpath()).containsExactly(jar.toString(), "/launcher.jar");
  }

  @Test
  void aJarWithoutMainClassShouldBeRefused() throws IOException {
    Path jar = jar("lib.jar", null, "a/B.class");
    assertThatThrownBy(() -> ProgramResolver.resolve(jar.toString(), null, ""))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("has no Main-Class");
  }

  private Path jar(String name, String mainClass, String... entries) throws IOException {
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    if (mainClass != null) {
      m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
    }
    Path jar = tmp.resolve(name);
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out, m)) {
      for (String e : entries) {
        j.putNextEntry(new JarEntry(e));
        j.closeEntry();
      }
    }
    return jar;
  }
}
