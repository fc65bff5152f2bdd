package dev.ddp4j.collectives.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The server's keys and the waiters blocked on missing ones. Every method takes this object's lock;
 * waiter callbacks run after it is released, on the thread that completed them.
 */
final class StoreState {

  /**
   * A request blocked until all its keys exist at the same moment; completes at most once. It is
   * registered under each key it still misses, so deleting a key it already saw puts it back on
   * that key's list rather than losing it.
   */
  final class Waiter {
    final List<String> keys;
    final Consumer<Waiter> onReady;
    boolean done;
    // The keys' values when it completed, read under the lock: a delete right after the wake-up
    // cannot turn a get's answer into an empty value.
    List<byte[]> values;
    // Fires STATUS_TIMEOUT if the keys never come; cancelled once the waiter completes.
    volatile java.util.concurrent.ScheduledFuture<?> timer;

    Waiter(List<String> keys, Consumer<Waiter> onReady) {
      this.keys = keys;
      this.onReady = onReady;
    }

    /** Removes this waiter if still pending; returns the keys still missing, or null if done. */
    List<String> cancel() {
      synchronized (StoreState.this) {
        if (done) {
          return null;
        }
        done = true;
        unregister(this);
        return missing(keys);
      }
    }
  }

  private static final byte[] EMPTY = new byte[0];

  private final Map<String, byte[]> data = new HashMap<>();
  private final Map<String, List<Waiter>> waiters = new HashMap<>();

  synchronized void set(String key, byte[] value) {
    data.put(key, value);
  }

  /** Sets {@code key} and returns the waiters it made ready; the caller runs them, unlocked. */
  List<Waiter> setAndCollect(String key, byte[] value) {
    synchronized (this) {
      data.put(key, value);
      return readyWaiters(key);
    }
  }

  static void fire(List<Waiter> ready) {
    for (Waiter w : ready) {
      w.onReady.accept(w);
    }
  }

  synchronized byte[] get(String key) {
    return data.get(key);
  }

  synchronized List<byte[]> getAll(List<String> keys) {
    List<byte[]> out = new ArrayList<>(keys.size());
    for (String k : keys) {
      out.add(data.get(k));
    }
    return out;
  }

  /** The new value and the waiters made ready, as {@code long[] {value}} plus a list. */
  AddResult add(String key, long delta) {
    synchronized (this) {
      byte[] old = data.get(key);
      long value = delta;
      if (old != null) {
        String text = new String(old, StandardCharsets.US_ASCII).trim();
        try {
          value = Math.addExact(Long.parseLong(text), delta);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "add on key '"
                  + key
                  + "': its value is not a decimal counter ("
                  + old.length
                  + " bytes); use a key that only add() writes");
        }
      }
      data.put(key, Long.toString(value).getBytes(StandardCharsets.US_ASCII));
      return new AddResult(value, readyWaiters(key));
    }
  }

  record AddResult(long value, List<Waiter> ready) {}

  /**
   * {@link StoreBarrier}'s arrival under one lock: marks {@code rank} arrived, bumps the count and,
   * when that completes it, sets the release key. Returns the waiters made ready.
   */
  List<Waiter> arrive(String name, int rank, int worldSize) {
    synchronized (this) {
      List<Waiter> ready =
          new ArrayList<>(setAndCollect(StoreBarrier.arrivedKey(name, rank), EMPTY));
      AddResult count = add(StoreBarrier.countKey(name), 1);
      ready.addAll(count.ready());
      if (count.value() == worldSize) {
        ready.addAll(setAndCollect(StoreBarrier.doneKey(name), EMPTY));
      }
      return ready;
    }
  }

  /** The ranks below {@code worldSize} that have not arrived at barrier {@code name}. */
  synchronized List<Integer> missingRanks(String name, int worldSize) {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < worldSize; r++) {
      if (!data.containsKey(StoreBarrier.arrivedKey(name, r))) {
        out.add(r);
      }
    }
    return out;
  }

  record CompareSetResult(byte[] value, List<Waiter> ready) {}

  CompareSetResult compareSet(String key, byte[] expected, byte[] desired) {
    synchronized (this) {
      byte[] current = data.get(key);
      boolean matches = current == null ? expected.length == 0 : Arrays.equals(current, expected);
      if (!matches) {
        return new CompareSetResult(current == null ? new byte[0] : current, List.of());
      }
      data.put(key, desired);
      return new CompareSetResult(desired, readyWaiters(key));
    }
  }

  List<Waiter> append(String key, byte[] value) {
    synchronized (this) {
      byte[] old = data.get(key);
      byte[] joined;
      if (old == null) {
        joined = value;
      } else {
        joined = Arrays.copyOf(old, old.length + value.length);
        System.arraycopy(value, 0, joined, old.length, value.length);
      }
      data.put(key, joined);
      return readyWaiters(key);
    }
  }

  synchronized boolean delete(String key) {
    return data.remove(key) != null;
  }

  synchronized long numKeys() {
    return data.size();
  }

  synchronized boolean containsAll(List<String> keys) {
    for (String k : keys) {
      if (!data.containsKey(k)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The keys' values if they all exist now (registering nothing), else null after registering
   * {@code pending}, whose {@code onReady} runs once they all exist.
   */
  synchronized List<byte[]> valuesOrAwait(Waiter pending) {
    if (containsAll(pending.keys)) {
      pending.done = true;
      return getAll(pending.keys);
    }
    register(pending, false);
    return null;
  }

  Waiter newWaiter(List<String> keys, Consumer<Waiter> onReady) {
    return new Waiter(keys, onReady);
  }

  /**
   * Puts {@code w} on the list of each key it misses. A new waiter is on no list, so only a
   * re-registration (after a delete) searches them: a thousand ranks waiting on one key would
   * otherwise make registering quadratic.
   */
  private void register(Waiter w, boolean again) {
    for (String k : w.keys) {
      if (!data.containsKey(k)) {
        List<Waiter> list = waiters.computeIfAbsent(k, x -> new ArrayList<>());
        if (!again || !list.contains(w)) {
          list.add(w);
        }
      }
    }
  }

  synchronized List<String> missing(List<String> keys) {
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      if (!data.containsKey(k)) {
        out.add(k);
      }
    }
    return out;
  }

  private List<Waiter> readyWaiters(String key) {
    List<Waiter> onKey = waiters.remove(key);
    if (onKey == null) {
      return List.of();
    }
    List<Waiter> ready = new ArrayList<>();
    for (Waiter w : onKey) {
      if (w.done) {
        continue;
      }
      if (containsAll(w.keys)) {
        w.done = true;
        w.values = getAll(w.keys);
        unregister(w);
        ready.add(w);
      } else {
        // Another of its keys was deleted after it registered: wait for that one again.
        register(w, true);
      }
    }
    return ready;
  }

  private void unregister(Waiter w) {
    for (String k : w.keys) {
      List<Waiter> list = waiters.get(k);
      if (list != null) {
        list.remove(w);
        if (list.isEmpty()) {
          waiters.remove(k);
        }
      }
    }
  }
}
