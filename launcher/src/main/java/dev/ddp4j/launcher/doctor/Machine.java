package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.transport.SocketAddresses;
import dev.ddp4j.spi.Settings;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the doctor's checks may read of a machine, and nothing else: so that tests feed them a
 * recorded machine (sysfs and /proc trees, command outputs, free space, interfaces) and the real
 * one is {@link RealMachine}.
 */
interface Machine {

  /** The environment a job's processes would get. */
  Settings env();

  /** Where sysfs is mounted ({@code /sys}). */
  Path sysRoot();

  /** Where procfs is mounted ({@code /proc}). */
  Path procRoot();

  /** The standard output of {@code command} when it exits 0 within seconds; else empty. */
  Optional<String> run(String... command);

  /** Whether the file (a device node, a library) exists. */
  boolean exists(Path file);

  /** The executable {@code name} on the PATH of {@link #env()}. */
  Optional<Path> executable(String name);

  /** Free bytes of the file system holding folder {@code dir}, or -1 when it is no folder. */
  long usableBytes(Path dir);

  /** The network interfaces, in the order the socket transport looks at them. */
  List<SocketAddresses.Interface> interfaces();

  /**
   * The GPUs through the CUDA driver, as a job discovers them (compute capability, bus id and peer
   * access in each GPU's attributes); empty where the driver is not usable from this JVM.
   */
  Optional<Topology> cudaTopology(List<String> notes);

  /**
   * Why a server cannot listen on {@code host:port} here (taken, not a local address); or empty.
   */
  Optional<String> bindProblem(String host, int port);

  /** This host's name, for the report. */
  String hostName();
}
