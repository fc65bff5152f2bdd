package dev.ddp4j.testing;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.locks.LockSupport;

/**
 * A store in a folder shared by the rank processes of a test: one file per key, written atomically
 * (temp file + rename), read-modify-write calls under a file lock. Waits poll every 0.2 ms; fine
 * for rendezvous, never used on a data path.
 */
public final class DirectoryStore implements Store {

  private final Path dir;

  public DirectoryStore(Path dir) {
    this.dir = dir;
  }

  private Path file(String key) {
    return dir.resolve(URLEncoder.encode(key, StandardCharsets.UTF_8));
  }

  @Override
  public Duration timeout() {
    return Duration.ofSeconds(60);
  }

  @Override
  public void set(String key, byte[] value) {
    try {
      Path tmp = Files.createTempFile(dir, ".tmp", "");
      Files.write(tmp, value);
      Files.move(
          tmp, file(key), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    wait(java.util.List.of(key), timeout);
    try {
      return Files.readAllBytes(file(key));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized long add(String key, long delta) {
    try (FileChannel lock =
            FileChannel.open(
                dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = lock.lock()) {
      Path f = file(key);
      long now = (Files.exists(f) ? Long.parseLong(Files.readString(f).trim()) : 0) + delta;
      set(key, Long.toString(now).getBytes(StandardCharsets.UTF_8));
      return now;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    throw new DdpException("DirectoryStore does not implement compareSet (not needed by tests)");
  }

  @Override
  public void wait(Collection<String> keys, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!check(keys)) {
      if (System.nanoTime() - deadline > 0) {
        throw new DdpTimeoutException("directory store " + dir + ": keys never set: " + keys);
      }
      LockSupport.parkNanos(200_000);
    }
  }

  @Override
  public boolean check(Collection<String> keys) {
    return keys.stream().allMatch(k -> Files.exists(file(k)));
  }

  @Override
  public boolean delete(String key) {
    try {
      return Files.deleteIfExists(file(key));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public long numKeys() {
    try (var s = Files.list(dir)) {
      return s.filter(p -> !p.getFileName().toString().startsWith(".")).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void append(String key, byte[] value) {
    throw new DdpException("DirectoryStore does not implement append (not needed by tests)");
  }

  @Override
  public void close() {}
}
