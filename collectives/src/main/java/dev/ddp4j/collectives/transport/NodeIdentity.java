package dev.ddp4j.collectives.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which machine this process runs on, as far as shared memory is concerned: the host name plus the
 * kernel's boot id, so two containers that share a host name but not a kernel are told apart.
 */
final class NodeIdentity {

  private NodeIdentity() {}

  static String current() {
    String host;
    try { // the UTS namespace's name, without the DNS lookup InetAddress.getLocalHost may do
      host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
    } catch (IOException e) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (IOException e2) {
        host = System.getenv().getOrDefault("HOSTNAME", "unknown-host");
      }
    }
    String boot;
    try {
      boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
    } catch (IOException e) {
      boot = "no-boot-id";
    }
    return host + "/" + boot;
  }
}
