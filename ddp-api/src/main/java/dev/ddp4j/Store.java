package dev.ddp4j;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A key-value store every rank of a job shares, used to rendezvous and exchange small metadata
 * (addresses, IPC handles, topology), never gradients. Keys are strings, values bytes. It is
 * PyTorch's c10d Store: the launcher hosts a TCP store (Netty), a {@code file://} init uses a file
 * on a shared filesystem.
 *
 * <p>Every blocking call takes a timeout and fails with {@link DdpTimeoutException} naming the keys
 * it still waited for; the no-timeout forms use {@link #timeout()} (300 s unless configured). Calls
 * are thread safe.
 */
public interface Store extends AutoCloseable {

  /** The timeout of the blocking calls that take none. */
  Duration timeout();

  /** Sets {@code key} to {@code value}, replacing any previous value. */
  void set(String key, byte[] value);

  /** The value of {@code key}, waiting up to {@code timeout} for some rank to set it. */
  byte[] get(String key, Duration timeout);

  /** {@link #get(String, Duration)} with {@link #timeout()}. */
  default byte[] get(String key) {
    return get(key, timeout());
  }

  /**
   * Adds {@code delta} to the counter at {@code key} (a missing key counts as 0) atomically and
   * returns the new value. Counters are stored as decimal text, so {@link #get} of a counter
   * returns e.g. {@code "3"}.
   */
  long add(String key, long delta);

  /**
   * Atomically sets {@code key} to {@code desired} if its value is {@code expected} (an empty
   * {@code expected} matches a missing key) and returns the value after the call: {@code desired}
   * if it was set, otherwise the current value (empty if the key is missing).
   */
  byte[] compareSet(String key, byte[] expected, byte[] desired);

  /** Waits until every key in {@code keys} exists, up to {@code timeout}. */
  void wait(Collection<String> keys, Duration timeout);

  /** True if every key in {@code keys} exists now. Never blocks. */
  boolean check(Collection<String> keys);

  /** Deletes {@code key}; true if it existed. */
  boolean delete(String key);

  /** The number of keys in the store. */
  long numKeys();

  /** The values of {@code keys}, in order, waiting up to {@code timeout} for all of them. */
  default List<byte[]> multiGet(List<String> keys, Duration timeout) {
    wait(keys, timeout);
    return keys.stream().map(k -> get(k, timeout)).toList();
  }

  /** Sets every entry of {@code values}. */
  default void multiSet(Map<String, byte[]> values) {
    values.forEach(this::set);
  }

  /** Appends {@code value} to {@code key}'s bytes (creating the key if missing). */
  void append(String key, byte[] value);

  /** Closes this client's connection; the store's data is kept for the others. */
  @Override
  void close();
}
