package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.transport.SocketAddresses;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The network between hosts: the interface the socket transport would take ({@code
 * DDP4J_SOCKET_IFNAME}, else the first non-loopback one that is up), its address and MTU; and
 * whether InfiniBand / RoCE devices exist and NCCL ({@code libnccl.so.2}) is there to use them.
 */
final class NetworkCheck {

  static final String NAME = "network";
  static final String RDMA = "rdma";

  /** Name prefixes of virtual bridges that other hosts rarely reach (NCCL skips them too). */
  static final List<String> BRIDGES = List.of("docker", "virbr", "veth", "br-", "cni", "flannel");

  /** Where NCCL's packages put libnccl.so.2, besides LD_LIBRARY_PATH. */
  static final List<String> LIBRARY_DIRS =
      List.of(
          "/usr/lib/x86_64-linux-gnu",
          "/usr/lib64",
          "/usr/lib",
          "/usr/local/lib",
          "/usr/local/cuda/lib64",
          "/usr/lib/aarch64-linux-gnu");

  private NetworkCheck() {}

  static List<Finding> check(Machine m, DoctorJob job) {
    List<Finding> out = new ArrayList<>();
    out.add(socketInterface(m, job));
    out.add(rdma(m));
    return out;
  }

  private static Finding socketInterface(Machine m, DoctorJob job) {
    String var = m.env().source("DDP4J_SOCKET_IFNAME");
    String ifname = m.env().text(var, null);
    if (ifname != null && ifname.isBlank()) {
      ifname = null;
    }
    List<SocketAddresses.Interface> all = m.interfaces();
    Optional<SocketAddresses.Interface> chosen = SocketAddresses.pick(ifname, all);
    List<String> up =
        all.stream().filter(SocketAddresses.Interface::up).map(i -> i.name()).toList();
    if (chosen.isEmpty()) {
      if (ifname != null) {
        return Finding.fail(
            NAME,
            var
                + "="
                + ifname
                + " matches no interface that is up with an IPv4 address (up: "
                + up
                + ")",
            "set " + var + " to one of " + up + ", or unset it");
      }
      String saw = "no interface but loopback is up with an IPv4 address: sockets use 127.0.0.1";
      return job.isMultiNode()
          ? Finding.fail(
              NAME, saw + ", which other hosts cannot reach", "bring up this host's network")
          : Finding.ok(NAME, saw + " (enough for one node)");
    }
    SocketAddresses.Interface i = chosen.get();
    String saw =
        "sockets between hosts use "
            + i.name()
            + " "
            + i.ipv4().get(0)
            + (i.mtuBytes() > 0 ? " (MTU " + i.mtuBytes() + ")" : "")
            + (ifname == null
                ? ", the first non-loopback interface that is up"
                : ", from " + var + "=" + ifname);
    boolean bridge = BRIDGES.stream().anyMatch(p -> i.name().startsWith(p));
    if (job.isMultiNode() && ifname == null && bridge) {
      List<String> others =
          up.stream()
              .filter(n -> BRIDGES.stream().noneMatch(n::startsWith) && !n.equals("lo"))
              .toList();
      return Finding.warn(
          NAME,
          saw + ": a virtual bridge, which other hosts usually cannot reach",
          "DDP4J_SOCKET_IFNAME="
              + (others.isEmpty() ? "<the interface other hosts reach>" : others.get(0)));
    }
    return Finding.ok(NAME, saw);
  }

  private static Finding rdma(Machine m) {
    List<String> devices = new ArrayList<>();
    Path ib = m.sysRoot().resolve("class/infiniband");
    if (Files.isDirectory(ib)) {
      try (Stream<Path> s = Files.list(ib)) {
        for (Path d : s.sorted().toList()) {
          devices.add(d.getFileName() + linkLayer(d));
        }
      } catch (IOException e) {
        // unreadable: reported as none
      }
    }
    Optional<Path> nccl = findNccl(m);
    String lib = nccl.map(p -> "libnccl.so.2 at " + p).orElse("no libnccl.so.2");
    if (devices.isEmpty()) {
      return Finding.ok(
          RDMA, "no InfiniBand/RoCE device: traffic between hosts goes over TCP sockets; " + lib);
    }
    String saw = "InfiniBand/RoCE devices " + String.join(", ", devices);
    if (nccl.isEmpty()) {
      return Finding.warn(
          RDMA,
          saw
              + " but no libnccl.so.2 (LD_LIBRARY_PATH, ldconfig): traffic between hosts goes over TCP"
              + " sockets",
          "install NCCL (libnccl2) or put its folder on LD_LIBRARY_PATH");
    }
    return Finding.ok(RDMA, saw + "; " + lib + ", for the nccl backend between hosts");
  }

  /** {@code (InfiniBand)} or {@code (Ethernet)} (RoCE) from the first port's link layer. */
  private static String linkLayer(Path device) {
    try {
      return " (" + Files.readString(device.resolve("ports/1/link_layer")).trim() + ")";
    } catch (IOException e) {
      return "";
    }
  }

  static Optional<Path> findNccl(Machine m) {
    List<String> dirs = new ArrayList<>();
    String ld = m.env().text("LD_LIBRARY_PATH", null);
    if (ld != null) {
      for (String d : ld.split(File.pathSeparator)) {
        if (!d.isBlank()) {
          dirs.add(d);
        }
      }
    }
    dirs.addAll(LIBRARY_DIRS);
    for (String d : dirs) {
      Path p = Path.of(d, "libnccl.so.2");
      if (m.exists(p)) {
        return Optional.of(p);
      }
    }
    Optional<String> cache = m.run("ldconfig", "-p").or(() -> m.run("/sbin/ldconfig", "-p"));
    if (cache.isPresent()) {
      for (String line : cache.get().split("\n")) {
        int arrow = line.indexOf("=>");
        if (line.trim().startsWith("libnccl.so.2 ") && arrow > 0) {
          return Optional.of(Path.of(line.substring(arrow + 2).trim()));
        }
      }
    }
    return Optional.empty();
  }
}
