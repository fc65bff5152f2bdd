package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.process.CommandOutput;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import dev.ddp4j.collectives.transport.SocketAddresses;
import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** This host: the real /sys, /proc, PATH, file systems, interfaces and CUDA driver. */
final class RealMachine implements Machine {

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final Settings env;

  RealMachine(Settings env) {
    this.env = env;
  }

  @Override
  public Settings env() {
    return env;
  }

  @Override
  public Path sysRoot() {
    return Path.of("/sys");
  }

  @Override
  public Path procRoot() {
    return Path.of("/proc");
  }

  @Override
  public Optional<String> run(String... command) {
    return CommandOutput.of(COMMAND_TIMEOUT, command);
  }

  @Override
  public boolean exists(Path file) {
    return Files.exists(file);
  }

  @Override
  public Optional<Path> executable(String name) {
    String path = env.text("PATH", null);
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  @Override
  public long usableBytes(Path dir) {
    try {
      return Files.isDirectory(dir) ? Files.getFileStore(dir).getUsableSpace() : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  @Override
  public List<SocketAddresses.Interface> interfaces() {
    return SocketAddresses.interfaces();
  }

  @Override
  public Optional<Topology> cudaTopology(List<String> notes) {
    if (CudaProbe.unavailableReason().isPresent()) {
      return Optional.empty();
    }
    // The machine itself, not a topology file that replaces discovery in jobs.
    // The machine itself, not a topology file the settings may name.
    TopologyDiscovery.Result r = TopologyDiscovery.discover(Settings.empty(), sysRoot(), 1);
    notes.addAll(r.notes());
    return r.topology().hasGpus() ? Optional.of(r.topology()) : Optional.empty();
  }

  @Override
  public Optional<String> bindProblem(String host, int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName(host), port));
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  @Override
  public String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
