package dev.ddp4j.collectives.store;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * {@link Store} kept in one file on a filesystem every rank shares ({@code file:///path}), as an
 * append-only log of {@link FileStoreDescriptor} records. Every operation takes an exclusive lock
 * on the file (fcntl through {@link FileChannel#lock}, plus a JVM-wide lock since one JVM may not
 * hold two fcntl locks on a file), reads the records appended since its last visit, then appends
 * its own. Blocking reads poll the file with backoff (a file has no wake-ups), from 2 ms up to 50
 * ms.
 *
 * <p>The file is not deleted when clients close; whoever picked the path removes it after the job
 * (a stale file from an earlier job would hand its keys to the next one).
 */
public final class FileStore implements Store {

  private static final Map<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

  private final Path path;
  private final Duration timeout;
  private final FileChannel channel;
  private final ReentrantLock jvmLock;
  private final Map<String, byte[]> cache = new HashMap<>();
  private long readOffset;

  private FileStore(Path path, Duration timeout, FileChannel channel) {
    this.path = path;
    this.timeout = timeout;
    this.channel = channel;
    this.jvmLock = JVM_LOCKS.computeIfAbsent(path, p -> new ReentrantLock());
  }

  /**
   * Opens (creating if missing) the store file at {@code path}.
   *
   * @throws StoreException naming the path when it cannot be opened
   */
  public static FileStore open(Path path, Duration timeout) {
    Path abs = path.toAbsolutePath().normalize();
    try {
      if (abs.getParent() != null) {
        Files.createDirectories(abs.getParent());
      }
      FileChannel ch =
          FileChannel.open(
              abs, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      return new FileStore(abs, timeout, ch);
    } catch (IOException e) {
      throw new StoreException(
          "cannot open the file store "
              + abs
              + ": "
              + e
              + " (expected: a writable path on a filesystem every rank shares)",
          e);
    }
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public void set(String key, byte[] value) {
    locked(
        () -> {
          write(FileStoreDescriptor.KIND_SET, key, value);
          return null;
        });
  }

  @Override
  public byte[] get(String key, Duration waitFor) {
    return waitFor(List.of(key), waitFor, "get of key '" + key + "'").get(0);
  }

  @Override
  public long add(String key, long delta) {
    return locked(
        () -> {
          byte[] old = cache.get(key);
          long value = delta;
          if (old != null) {
            try {
              value =
                  Math.addExact(Long.parseLong(new String(old, StandardCharsets.US_ASCII)), delta);
            } catch (NumberFormatException e) {
              throw new StoreException(
                  "add on key '"
                      + key
                      + "': its value is not a decimal counter; use a key that only add() writes");
            }
          }
          write(
              FileStoreDescriptor.KIND_SET,
              key,
              Long.toString(value).getBytes(StandardCharsets.US_ASCII));
          return value;
        });
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    return locked(
        () -> {
          byte[] current = cache.get(key);
          boolean matches =
              current == null ? expected.length == 0 : Arrays.equals(current, expected);
          if (!matches) {
            return current == null ? new byte[0] : current;
          }
          write(FileStoreDescriptor.KIND_SET, key, desired);
          return desired;
        });
  }

  @Override
  public void wait(Collection<String> keys, Duration waitFor) {
    waitFor(List.copyOf(keys), waitFor, "wait for " + keys.size() + " key(s)");
  }

  @Override
  public boolean check(Collection<String> keys) {
    return locked(() -> cache.keySet().containsAll(keys));
  }

  @Override
  public boolean delete(String key) {
    return locked(
        () -> {
          boolean existed = cache.containsKey(key);
          if (existed) {
            write(FileStoreDescriptor.KIND_DELETE, key, new byte[0]);
          }
          return existed;
        });
  }

  @Override
  public long numKeys() {
    return locked(() -> (long) cache.size());
  }

  @Override
  public List<byte[]> multiGet(List<String> keys, Duration waitFor) {
    return waitFor(keys, waitFor, "multiGet of " + keys.size() + " key(s)");
  }

  @Override
  public void multiSet(Map<String, byte[]> values) {
    locked(
        () -> {
          for (Map.Entry<String, byte[]> e : values.entrySet()) {
            write(FileStoreDescriptor.KIND_SET, e.getKey(), e.getValue());
          }
          return null;
        });
  }

  @Override
  public void append(String key, byte[] value) {
    locked(
        () -> {
          byte[] old = cache.getOrDefault(key, new byte[0]);
          byte[] joined = Arrays.copyOf(old, old.length + value.length);
          System.arraycopy(value, 0, joined, old.length, value.length);
          write(FileStoreDescriptor.KIND_SET, key, joined);
          return null;
        });
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new StoreException("closing the file store " + path + ": " + e, e);
    }
  }

  /**
   * Waits until every key exists and returns their values, read under the lock in the same visit
   * that found them all (a delete right after cannot empty the answer).
   */
  private List<byte[]> waitFor(List<String> keys, Duration waitFor, String what) {
    long deadlineNs = System.nanoTime() + waitFor.toNanos();
    long pauseMs = 2;
    while (true) {
      List<String> missing = new ArrayList<>();
      List<byte[]> values =
          locked(
              () -> {
                List<byte[]> v = new ArrayList<>(keys.size());
                for (String k : keys) {
                  byte[] value = cache.get(k);
                  if (value == null) {
                    missing.add(k);
                  }
                  v.add(value);
                }
                return v;
              });
      if (missing.isEmpty()) {
        return values;
      }
      if (deadlineNs - System.nanoTime() < 0) {
        throw new DdpTimeoutException(
            what
                + " timed out after "
                + waitFor.toSeconds()
                + " s: still missing "
                + missing
                + " in the file store "
                + path
                + " (did the rank that publishes them fail?)");
      }
      try {
        Thread.sleep(
            Math.min(
                pauseMs,
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()))));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException(what + " on the file store " + path + " was interrupted");
      }
      pauseMs = Math.min(50, pauseMs * 2);
    }
  }

  /** Runs {@code op} holding both locks, after reading what others appended. */
  private <T> T locked(Supplier<T> op) {
    jvmLock.lock();
    try (FileLock lock = channel.lock()) {
      refresh();
      return op.get();
    } catch (IOException e) {
      throw new StoreException("file store " + path + ": " + e, e);
    } finally {
      jvmLock.unlock();
    }
  }

  private void refresh() throws IOException {
    long size = channel.size();
    if (size < readOffset) {
      throw new StoreException(
          "the file store "
              + path
              + " shrank from "
              + readOffset
              + " to "
              + size
              + " bytes while in use (was it deleted or truncated by another job?)");
    }
    if (size == readOffset) {
      return;
    }
    ByteBuffer buf = ByteBuffer.allocate((int) (size - readOffset));
    while (buf.hasRemaining()) {
      if (channel.read(buf, readOffset + buf.position()) < 0) {
        break;
      }
    }
    buf.flip();
    readOffset += FileStoreDescriptor.apply(buf, cache, path);
  }

  private void write(byte kind, String key, byte[] value) {
    ByteBuffer rec = FileStoreDescriptor.encode(kind, key, value);
    try {
      long at = channel.size();
      while (rec.hasRemaining()) {
        at += channel.write(rec, at);
      }
      // Our own record is now part of the file; read it back through the same path as others'.
      refresh();
    } catch (IOException e) {
      throw new StoreException("writing the file store " + path + ": " + e, e);
    }
  }

  @Override
  public String toString() {
    return "FileStore[" + path + "]";
  }
}
