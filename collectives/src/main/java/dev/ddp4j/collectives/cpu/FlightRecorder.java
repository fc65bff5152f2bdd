package dev.ddp4j.collectives.cpu;

/**
 * The last {@code capacity} collectives of a group with their state and timings, dumped when one
 * times out or fails so the log shows where each rank was. Thread safe (callers and the progress
 * thread record; a dump may run on either).
 */
final class FlightRecorder {

  enum State {
    QUEUED,
    RUNNING,
    DONE,
    FAILED
  }

  private static final class Entry {
    long sequence = -1;
    String what;
    State state;
    long queuedNs;
    long startedNs;
    long endedNs;
  }

  private final Entry[] entries;

  FlightRecorder(int capacity) {
    entries = new Entry[Math.max(1, capacity)];
    for (int i = 0; i < entries.length; i++) {
      entries[i] = new Entry();
    }
  }

  synchronized void queued(long sequence, String what, long nowNs) {
    Entry e = entries[(int) (sequence % entries.length)];
    e.sequence = sequence;
    e.what = what;
    e.state = State.QUEUED;
    e.queuedNs = nowNs;
    e.startedNs = 0;
    e.endedNs = 0;
  }

  synchronized void started(long sequence, long nowNs) {
    Entry e = entries[(int) (sequence % entries.length)];
    if (e.sequence == sequence) {
      e.state = State.RUNNING;
      e.startedNs = nowNs;
    }
  }

  synchronized void ended(long sequence, boolean ok, long nowNs) {
    Entry e = entries[(int) (sequence % entries.length)];
    if (e.sequence == sequence) {
      e.state = ok ? State.DONE : State.FAILED;
      e.endedNs = nowNs;
    }
  }

  /** The recorded collectives, oldest first, one per line. */
  synchronized String dump(int rank) {
    long newest = -1;
    for (Entry e : entries) {
      newest = Math.max(newest, e.sequence);
    }
    StringBuilder sb = new StringBuilder();
    sb.append("flight recorder of rank ").append(rank).append(" (last ").append(entries.length);
    sb.append(" collectives):\n   seq  state    queued->start(us)  run(us)  collective\n");
    for (long s = Math.max(0, newest - entries.length + 1); s <= newest; s++) {
      Entry e = entries[(int) (s % entries.length)];
      if (e.sequence != s) {
        continue;
      }
      long wait = e.startedNs == 0 ? -1 : (e.startedNs - e.queuedNs) / 1000;
      long run =
          e.startedNs == 0
              ? -1
              : ((e.endedNs == 0 ? System.nanoTime() : e.endedNs) - e.startedNs) / 1000;
      sb.append(String.format("%6d  %-7s  %17d  %7d  %s%n", s, e.state, wait, run, e.what));
    }
    return sb.toString();
  }
}
