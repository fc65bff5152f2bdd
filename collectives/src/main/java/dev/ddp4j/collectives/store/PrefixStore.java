package dev.ddp4j.collectives.store;

import dev.ddp4j.Store;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A subgroup's view of its parent's store: every key is prefixed, so the subgroup's set-up keys
 * (and its own subgroups') never meet the parent's or a sibling's, as c10d's PrefixStore. A view of
 * a view is one view with both prefixes. {@link #close()} closes nothing: the parent owns the
 * connection, and closing a subgroup must leave the parent usable.
 */
public final class PrefixStore implements Store {

  private final Store base;
  private final String prefix;

  private PrefixStore(Store base, String prefix) {
    this.base = base;
    this.prefix = prefix;
  }

  /** {@code store} with {@code prefix} before every key. */
  public static PrefixStore of(Store store, String prefix) {
    if (store instanceof PrefixStore p) {
      return new PrefixStore(p.base, p.prefix + prefix);
    }
    return new PrefixStore(store, prefix);
  }

  /** What this view puts before every key of the underlying store. */
  public String prefix() {
    return prefix;
  }

  private List<String> keys(Collection<String> keys) {
    return keys.stream().map(k -> prefix + k).toList();
  }

  @Override
  public Duration timeout() {
    return base.timeout();
  }

  @Override
  public void set(String key, byte[] value) {
    base.set(prefix + key, value);
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    return base.get(prefix + key, timeout);
  }

  @Override
  public long add(String key, long delta) {
    return base.add(prefix + key, delta);
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    return base.compareSet(prefix + key, expected, desired);
  }

  @Override
  public void wait(Collection<String> keys, Duration timeout) {
    base.wait(keys(keys), timeout);
  }

  @Override
  public boolean check(Collection<String> keys) {
    return base.check(keys(keys));
  }

  @Override
  public boolean delete(String key) {
    return base.delete(prefix + key);
  }

  /** The keys of the whole store (a view cannot count its own without listing every key). */
  @Override
  public long numKeys() {
    return base.numKeys();
  }

  @Override
  public List<byte[]> multiGet(List<String> keys, Duration timeout) {
    return base.multiGet(keys(keys), timeout);
  }

  @Override
  public void multiSet(Map<String, byte[]> values) {
    Map<String, byte[]> prefixed = new java.util.LinkedHashMap<>();
    values.forEach((k, v) -> prefixed.put(prefix + k, v));
    base.multiSet(prefixed);
  }

  @Override
  public void append(String key, byte[] value) {
    base.append(prefix + key, value);
  }

  /** Leaves the parent's connection open. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return base + " under '" + prefix + "'";
  }
}
