package dev.ddp4j;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The program's own store as a group sees it: every call goes through, except {@link #close()},
 * which leaves the store open for the program (it made it, it may make more groups over it, and it
 * closes it itself, as with PyTorch's {@code init_process_group(store=...)}).
 */
final class BorrowedStore implements Store {

  private final Store owned;

  BorrowedStore(Store owned) {
    this.owned = owned;
  }

  @Override
  public Duration timeout() {
    return owned.timeout();
  }

  @Override
  public void set(String key, byte[] value) {
    owned.set(key, value);
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    return owned.get(key, timeout);
  }

  @Override
  public long add(String key, long delta) {
    return owned.add(key, delta);
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    return owned.compareSet(key, expected, desired);
  }

  @Override
  public void wait(Collection<String> keys, Duration timeout) {
    owned.wait(keys, timeout);
  }

  @Override
  public boolean check(Collection<String> keys) {
    return owned.check(keys);
  }

  @Override
  public boolean delete(String key) {
    return owned.delete(key);
  }

  @Override
  public long numKeys() {
    return owned.numKeys();
  }

  @Override
  public List<byte[]> multiGet(List<String> keys, Duration timeout) {
    return owned.multiGet(keys, timeout);
  }

  @Override
  public void multiSet(Map<String, byte[]> values) {
    owned.multiSet(values);
  }

  @Override
  public void append(String key, byte[] value) {
    owned.append(key, value);
  }

  @Override
  public void close() {
    // The program's: it closes it after its groups.
  }
}
