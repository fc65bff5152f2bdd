package dev.ddp4j.collectives.transport;

import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which machine this process runs on, as far as shared memory and GPU peer access are concerned:
 * the host name plus the kernel's boot id, so two containers that share a host name but not a
 * kernel are told apart. {@code DDP4J_HOST_ID} replaces it, so that tests can make ranks of one
 * machine look like several hosts (they then talk through sockets).
 */
public final class NodeIdentity {

  /** Overrides the identity when set (default: host name + boot id). */
  public static final String HOST_ID = "DDP4J_HOST_ID";

  private NodeIdentity() {}

  /** This process's host identity. */
  public static String current() {
    Settings settings = Settings.process();
    if (settings.isSet(HOST_ID)) {
      return settings.text(HOST_ID, "");
    }
    String host;
    try { // the UTS namespace's name, without the DNS lookup InetAddress.getLocalHost may do
      host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
    } catch (IOException e) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (IOException e2) {
        host = settings.text("HOSTNAME", "unknown-host");
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
