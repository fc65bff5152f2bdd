package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import java.nio.file.Path;

/**
 * Where the job's store is, as the flags say it: a TCP host and port (port 0 = pick a free one, on
 * a single node), or a shared file.
 */
public record StoreAddress(String host, int port, Path file) {

  public static StoreAddress tcp(String host, int port) {
    return new StoreAddress(host, port, null);
  }

  public static StoreAddress file(Path file) {
    return new StoreAddress(null, 0, file);
  }

  public boolean isFile() {
    return file != null;
  }

  /** The init method workers get, once the port is known. */
  InitMethod toInitMethod(int actualPort) {
    return isFile() ? InitMethod.parse("file://" + file) : InitMethod.tcp(host, actualPort);
  }

  @Override
  public String toString() {
    return isFile() ? "file://" + file : host + ":" + port;
  }
}
