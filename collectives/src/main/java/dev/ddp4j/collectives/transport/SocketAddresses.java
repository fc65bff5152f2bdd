package dev.ddp4j.collectives.transport;

import dev.ddp4j.ConfigException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Picks the address a rank's socket server listens on and advertises to its peers; {@code
 * launcher.jar doctor} asks the same question of a recorded machine through {@link #pick}.
 */
public final class SocketAddresses {

  /**
   * One network interface as the choice sees it.
   *
   * @param ipv4 its IPv4 addresses, first first
   * @param mtuBytes its MTU, or -1 where unknown
   */
  public record Interface(
      String name, boolean up, boolean loopback, List<String> ipv4, int mtuBytes) {

    public Interface {
      ipv4 = List.copyOf(ipv4);
    }
  }

  private SocketAddresses() {}

  /**
   * The first IPv4 address of interface {@code ifname} when given (NCCL's syntax: a name prefix,
   * {@code ^} to exclude, {@code =} for an exact name), else of the first non-loopback interface
   * that is up, else 127.0.0.1.
   */
  static String advertised(String ifname) {
    List<Interface> all = interfaces();
    Optional<Interface> chosen = pick(ifname, all);
    if (chosen.isPresent()) {
      return chosen.get().ipv4().get(0);
    }
    if (ifname != null) {
      throw new ConfigException(
          "DDP4J_SOCKET_IFNAME="
              + ifname
              + " matches no interface with an IPv4 address that is up (interfaces: "
              + all.stream().filter(Interface::up).map(Interface::name).toList()
              + ")");
    }
    return "127.0.0.1";
  }

  /**
   * The interface {@link #advertised} takes its address from, in {@code all}'s order: the first
   * that is up, has an IPv4 address and matches {@code ifname} (when null: is not loopback). Empty:
   * none does (without {@code ifname}, sockets then use 127.0.0.1).
   */
  public static Optional<Interface> pick(String ifname, List<Interface> all) {
    for (Interface nif : all) {
      if (!nif.up() || nif.ipv4().isEmpty()) {
        continue;
      }
      if (ifname == null ? !nif.loopback() : matches(ifname.trim(), nif.name())) {
        return Optional.of(nif);
      }
    }
    return Optional.empty();
  }

  /** This host's interfaces, in the order the JDK lists them. */
  public static List<Interface> interfaces() {
    try {
      List<Interface> out = new ArrayList<>();
      for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        List<String> v4 = new ArrayList<>();
        for (InetAddress a : Collections.list(nif.getInetAddresses())) {
          if (a instanceof Inet4Address) {
            v4.add(a.getHostAddress());
          }
        }
        out.add(new Interface(nif.getName(), nif.isUp(), nif.isLoopback(), v4, nif.getMTU()));
      }
      return out;
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
