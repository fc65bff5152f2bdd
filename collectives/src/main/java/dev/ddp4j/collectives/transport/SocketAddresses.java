package dev.ddp4j.collectives.transport;

import dev.ddp4j.ConfigException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Picks the address a rank's socket server listens on and advertises to its peers. */
final class SocketAddresses {

  private SocketAddresses() {}

  /**
   * The first IPv4 address of interface {@code ifname} when given (NCCL's syntax: a name prefix,
   * {@code ^} to exclude, {@code =} for an exact name), else of the first non-loopback interface
   * that is up, else 127.0.0.1.
   */
  static String advertised(String ifname) {
    try {
      List<NetworkInterface> all = Collections.list(NetworkInterface.getNetworkInterfaces());
      List<String> seen = new ArrayList<>();
      for (NetworkInterface nif : all) {
        if (!nif.isUp()) {
          continue;
        }
        seen.add(nif.getName());
        boolean wanted = ifname == null ? !nif.isLoopback() : matches(ifname.trim(), nif.getName());
        if (wanted) {
          for (InetAddress a : Collections.list(nif.getInetAddresses())) {
            if (a instanceof Inet4Address) {
              return a.getHostAddress();
            }
          }
        }
      }
      if (ifname != null) {
        throw new ConfigException(
            "DDP4J_SOCKET_IFNAME="
                + ifname
                + " matches no interface with an IPv4 address that is up (interfaces: "
                + seen
                + ")");
      }
      return "127.0.0.1";
    } catch (SocketException e) {
      throw new ConfigException("cannot list network interfaces: " + e);
    }
  }

  private static boolean matches(String spec, String name) {
    if (spec.startsWith("^")) {
      return !matches(spec.substring(1), name);
    }
    if (spec.startsWith("=")) {
      return name.equals(spec.substring(1));
    }
    for (String prefix : spec.split(",")) {
      if (name.startsWith(prefix.trim())) {
        return true;
      }
    }
    return false;
  }
}
