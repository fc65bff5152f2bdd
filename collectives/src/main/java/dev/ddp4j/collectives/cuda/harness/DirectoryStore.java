package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A {@link Store} kept as one file per key in a directory that every rank of one machine shares,
 * for the GPU test and bench harness, which runs where the launcher's TCP store is not at hand.
 * Writes are atomic renames; read-modify-write calls hold a file lock on {@code .lock}. Waits poll
 * with a backoff up to 1 ms.
 */
public final class DirectoryStore implements Store {

  private final Path dir;
  private final Duration timeout;

  public DirectoryStore(Path dir, Duration timeout) {
    this.dir = dir;
    this.timeout = timeout;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StoreException("cannot create the store directory " + dir + ": " + e, e);
    }
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  private Path file(String key) {
    return dir.resolve("k-" + HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8)));
  }

  private byte[] readOrNull(String key) {
    try {
      return Files.readAllBytes(file(key));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void set(String key, byte[] value) {
    try {
      Path tmp = Files.createTempFile(dir, "tmp-", "");
      Files.write(tmp, value);
      Files.move(
          tmp, file(key), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new StoreException("cannot set " + key + " in " + dir + ": " + e, e);
    }
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    wait(List.of(key), timeout);
    return readOrNull(key);
  }

  private interface Locked<T> {
    T run() throws IOException;
  }

  private <T> T locked(Locked<T> body) {
    try (FileChannel ch =
            FileChannel.open(
                dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = ch.lock()) {
      return body.run();
    } catch (IOException e) {
      throw new StoreException("store " + dir + ": " + e, e);
    }
  }

  @Override
  public long add(String key, long delta) {
    return locked(
        () -> {
          byte[] old = readOrNull(key);
          long v = (old == null ? 0 : Long.parseLong(new String(old, StandardCharsets.US_ASCII)));
          v += delta;
          set(key, Long.toString(v).getBytes(StandardCharsets.US_ASCII));
          return v;
        });
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    return locked(
        () -> {
          byte[] old = readOrNull(key);
          boolean matches = old == null ? expected.length == 0 : Arrays.equals(old, expected);
          if (matches) {
            set(key, desired);
            return desired;
          }
          return old == null ? new byte[0] : old;
        });
  }

  @Override
  public void wait(Collection<String> keys, Duration timeout) {
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    long parkNs = 10_000;
    while (true) {
      List<String> missing = new ArrayList<>();
      for (String k : keys) {
        if (!Files.exists(file(k))) {
          missing.add(k);
        }
      }
      if (missing.isEmpty()) {
        return;
      }
      if (System.nanoTime() - deadlineNs > 0) {
        throw new DdpTimeoutException(
            "store " + dir + ": keys " + missing + " were not set within " + timeout, List.of());
      }
      LockSupport.parkNanos(parkNs);
      parkNs = Math.min(2 * parkNs, 1_000_000);
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
      throw new StoreException("cannot delete " + key + ": " + e, e);
    }
  }

  @Override
  public long numKeys() {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().startsWith("k-")).count();
    } catch (IOException e) {
      throw new StoreException("cannot list " + dir + ": " + e, e);
    }
  }

  @Override
  public void append(String key, byte[] value) {
    locked(
        () -> {
          byte[] old = readOrNull(key);
          byte[] joined = old == null ? value : Arrays.copyOf(old, old.length + value.length);
          if (old != null) {
            System.arraycopy(value, 0, joined, old.length, value.length);
          }
          set(key, joined);
          return null;
        });
  }

  @Override
  public void close() {}
}
