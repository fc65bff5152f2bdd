package dev.ddp4j.launcher.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * ND4J's natives jars as Maven Central has them for 1.0.0-M2.1 (file names, entry names, Maven
 * metadata), with small stand-ins for the libraries: the CUDA one is the test resource {@code
 * nd4j/libnd4jcuda.so} (sm_75, sm_86), the CPU ones a few bytes (the check never reads them).
 */
final class Nd4jJars {

  static final String CUDA_JAR = "nd4j-cuda-11.6-1.0.0-M2.1-linux-x86_64.jar";
  static final String CUDA_LIBRARY = "org/nd4j/linalg/jcublas/bindings/linux-x86_64/libnd4jcuda.so";
  static final String NATIVE_JAR = "nd4j-native-1.0.0-M2.1-linux-x86_64.jar";
  static final String CPU_FOLDER = "org/nd4j/linalg/cpu/nativecpu/bindings/linux-x86_64/";

  private Nd4jJars() {}

  /** nd4j-cuda-11.6's natives jar in {@code dir}, holding {@code library} as libnd4jcuda.so. */
  static Path cuda(Path dir, byte[] library) {
    Map<String, byte[]> e = new LinkedHashMap<>();
    e.put("META-INF/native-image/linux-x86_64/jnind4jcuda/reflect-config.json", bytes("[]"));
    e.put("org/nd4j/linalg/jcublas/bindings/linux-x86_64/libjnind4jcuda.so", bytes("jni"));
    e.put("META-INF/maven/org.nd4j/nd4j-cuda-11.6/pom.properties", pom("nd4j-cuda-11.6"));
    e.put(CUDA_LIBRARY, library);
    return jar(dir.resolve(CUDA_JAR), e);
  }

  /** nd4j-native's natives jar in {@code dir}, with the entries of the real 87 MB one. */
  static Path cpu(Path dir) {
    Map<String, byte[]> e = new LinkedHashMap<>();
    e.put("META-INF/native-image/linux-x86_64/jnind4jcpu/reflect-config.json", bytes("[]"));
    e.put(CPU_FOLDER + "libgomp.so.1", bytes("gomp"));
    e.put(CPU_FOLDER + "libjnind4jcpu.so", bytes("jni"));
    e.put("META-INF/maven/org.nd4j/nd4j-native/pom.properties", pom("nd4j-native"));
    e.put(CPU_FOLDER + "libnd4jcpu.so", bytes("\u007fELF cpu"));
    return jar(dir.resolve(NATIVE_JAR), e);
  }

  /** The fixture library: 26 KB, machine code for sm_75 and sm_86, no PTX (nd4j/README.md). */
  static byte[] fixtureLibrary() {
    try (InputStream in = Nd4jJars.class.getResourceAsStream("/nd4j/libnd4jcuda.so")) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path jar(Path file, Map<String, byte[]> entries) {
    try (OutputStream out = Files.newOutputStream(file);
        JarOutputStream j = new JarOutputStream(out)) {
      for (Map.Entry<String, byte[]> e : entries.entrySet()) {
        j.putNextEntry(new JarEntry(e.getKey()));
        j.write(e.getValue());
        j.closeEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] pom(String artifact) {
    return bytes("groupId=org.nd4j\nartifactId=" + artifact + "\nversion=1.0.0-M2.1\n");
  }
}
