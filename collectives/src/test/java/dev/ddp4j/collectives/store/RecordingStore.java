package dev.ddp4j.collectives.store;

import dev.ddp4j.Store;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store seen through a counter of the requests a caller made of it: {@link #reads()} are the
 * calls that wait for other ranks' keys (get, wait, multiGet), each one round trip on the TCP
 * store.
 */
final class RecordingStore implements Store {

  private final Store real;
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicInteger sets = new AtomicInteger();

  RecordingStore(Store real) {
    this.real = real;
  }

  /** Calls that waited for keys: get, wait and multiGet. */
  int reads() {
    return reads.get();
  }

  int sets() {
    return sets.get();
  }

  @Override
  public Duration timeout() {
    return real.timeout();
  }

  @Override
  public void set(String key, byte[] value) {
    sets.incrementAndGet();
    real.set(key, value);
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    reads.incrementAndGet();
    return real.get(key, timeout);
  }

  @Override
  public long add(String key, long delta) {
    return real.add(key, delta);
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    return real.compareSet(key, expected, desired);
  }

  @Override
  public void wait(Collection<String> keys, Duration timeout) {
    reads.incrementAndGet();
    real.wait(keys, timeout);
  }

  @Override
  public boolean check(Collection<String> keys) {
    return real.check(keys);
  }

  @Override
  public boolean delete(String key) {
    return real.delete(key);
  }

  @Override
  public long numKeys() {
    return real.numKeys();
  }

  @Override
  public List<byte[]> multiGet(List<String> keys, Duration timeout) {
    reads.incrementAndGet();
    return real.multiGet(keys, timeout);
  }

  @Override
  public void multiSet(Map<String, byte[]> values) {
    sets.incrementAndGet();
    real.multiSet(values);
  }

  @Override
  public void append(String key, byte[] value) {
    real.append(key, value);
  }

  @Override
  public void close() {
    real.close();
  }
}
