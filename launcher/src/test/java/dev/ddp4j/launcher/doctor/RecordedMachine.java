package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.transport.SocketAddresses;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * A machine recorded under {@code src/test/resources/doctor/NAME/}: {@code sys/} and {@code proc/}
 * trees, command outputs under {@code commands/}, and {@code machine.properties} for the rest
 * (files that exist, executables on the PATH, free bytes per folder, interfaces, which command
 * prints which file, environment variables as {@code env.NAME}). Its CUDA driver is never usable,
 * so GPUs come from the recorded nvidia-smi outputs.
 */
final class RecordedMachine implements Machine {

  private final Path root;
  private final Properties p = new Properties();
  private final Map<String, String> env = new TreeMap<>();
  private final Map<String, String> commandFiles = new HashMap<>();
  private final Set<Integer> takenPorts = new java.util.HashSet<>();

  RecordedMachine(String name) {
    try {
      root = Path.of(RecordedMachine.class.getResource("/doctor/" + name).toURI());
      try (Reader r = Files.newBufferedReader(root.resolve("machine.properties"))) {
        p.load(r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    for (String k : p.stringPropertyNames()) {
      if (k.startsWith("env.")) {
        env.put(k.substring(4), p.getProperty(k));
      } else if (k.startsWith("command.")) {
        commandFiles.put(p.getProperty(k).trim(), k.substring("command.".length()));
      }
    }
  }

  /** This machine with one more environment variable. */
  RecordedMachine with(String var, String value) {
    env.put(var, value);
    return this;
  }

  /** This machine with {@code port} taken by another process. */
  RecordedMachine portTaken(int port) {
    takenPorts.add(port);
    return this;
  }

  @Override
  public dev.ddp4j.spi.Settings env() {
    return dev.ddp4j.spi.Settings.of(env);
  }

  @Override
  public Path sysRoot() {
    return root.resolve("sys");
  }

  @Override
  public Path procRoot() {
    return root.resolve("proc");
  }

  @Override
  public Optional<String> run(String... command) {
    String file = commandFiles.get(String.join(" ", command));
    if (file == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Files.readString(root.resolve("commands").resolve(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean exists(Path file) {
    return list("exists").contains(file.toString());
  }

  @Override
  public Optional<Path> executable(String name) {
    return list("executables").contains(name)
        ? Optional.of(Path.of("/usr/bin", name))
        : Optional.empty();
  }

  @Override
  public long usableBytes(Path dir) {
    boolean tmp = dir.equals(Path.of(System.getProperty("java.io.tmpdir")));
    String v = p.getProperty(tmp ? "free.tmpdir" : "free." + dir);
    return v == null ? -1 : Long.parseLong(v.trim());
  }

  /** {@code iface.N=NAME up|down loopback|- IPV4 MTU}, in N's order. */
  @Override
  public List<SocketAddresses.Interface> interfaces() {
    List<SocketAddresses.Interface> out = new ArrayList<>();
    for (int i = 0; p.getProperty("iface." + i) != null; i++) {
      String[] f = p.getProperty("iface." + i).trim().split("\\s+");
      out.add(
          new SocketAddresses.Interface(
              f[0],
              f[1].equals("up"),
              f[2].equals("loopback"),
              List.of(f[3]),
              Integer.parseInt(f[4])));
    }
    return out;
  }

  @Override
  public Optional<Topology> cudaTopology(List<String> notes) {
    return Optional.empty();
  }

  @Override
  public Optional<String> bindProblem(String host, int port) {
    return takenPorts.contains(port) ? Optional.of("Address already in use") : Optional.empty();
  }

  @Override
  public String hostName() {
    return p.getProperty("host", "recorded");
  }

  private List<String> list(String key) {
    String v = p.getProperty(key, "").trim();
    return v.isEmpty() ? List.of() : Arrays.asList(v.split("\\s*,\\s*"));
  }
}
