package dev.ddp4j.testing;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A store shared by ranks that are threads of one test JVM (for in-process transport tests;
 * multi-process tests use the TCP store). Blocking calls wait on the monitor with a timeout.
 */
public final class InMemoryStore implements Store {

  private final Map<String, byte[]> values = new HashMap<>();

  @Override
  public Duration timeout() {
    return Duration.ofSeconds(30);
  }

  @Override
  public synchronized void set(String key, byte[] value) {
    values.put(key, value.clone());
    notifyAll();
  }

  @Override
  public synchronized byte[] get(String key, Duration timeout) {
    waitFor(java.util.List.of(key), timeout);
    return values.get(key).clone();
  }

  @Override
  public synchronized long add(String key, long delta) {
    byte[] v = values.get(key);
    long now = (v == null ? 0 : Long.parseLong(new String(v, StandardCharsets.UTF_8))) + delta;
    set(key, Long.toString(now).getBytes(StandardCharsets.UTF_8));
    return now;
  }

  @Override
  public synchronized byte[] compareSet(String key, byte[] expected, byte[] desired) {
    byte[] v = values.get(key);
    boolean match = v == null ? expected.length == 0 : java.util.Arrays.equals(v, expected);
    if (match) {
      set(key, desired);
      return desired.clone();
    }
    return v == null ? new byte[0] : v.clone();
  }

  @Override
  public synchronized void wait(Collection<String> keys, Duration timeout) {
    waitFor(keys, timeout);
  }

  private void waitFor(Collection<String> keys, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!values.keySet().containsAll(keys)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new DdpTimeoutException("in-memory store: keys never set: " + keys);
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DdpTimeoutException("interrupted waiting for " + keys);
      }
    }
  }

  @Override
  public synchronized boolean check(Collection<String> keys) {
    return values.keySet().containsAll(keys);
  }

  @Override
  public synchronized boolean delete(String key) {
    return values.remove(key) != null;
  }

  @Override
  public synchronized long numKeys() {
    return values.size();
  }

  @Override
  public synchronized void append(String key, byte[] value) {
    byte[] v = values.getOrDefault(key, new byte[0]);
    byte[] joined = java.util.Arrays.copyOf(v, v.length + value.length);
    System.arraycopy(value, 0, joined, v.length, value.length);
    set(key, joined);
  }

  @Override
  public void close() {}
}
