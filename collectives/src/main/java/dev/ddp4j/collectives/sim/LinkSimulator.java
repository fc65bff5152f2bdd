package dev.ddp4j.collectives.sim;

import dev.ddp4j.collectives.plan.CostParams;
import dev.ddp4j.collectives.schedule.RankSchedule;
import dev.ddp4j.collectives.schedule.Schedule;
import dev.ddp4j.collectives.schedule.Step;
import dev.ddp4j.collectives.schedule.StepKind;
import dev.ddp4j.collectives.schedule.StepOrder;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Replays a {@link Schedule} on a topology, link by link, to predict its time. Each rank's channel
 * programs run their steps in order, except that a step may start before earlier unfinished ones as
 * the cpu runner lets it ({@link StepOrder}, whole steps here: a step that may follow another piece
 * by piece waits for all of it). A SEND posts a message (once fewer than {@code slots} are
 * unreceived on that pair and channel); each lane of a rank's channel ({@link Step#lane}) transmits
 * its messages one at a time, each over the directed links of its route, where all messages in
 * flight share every link max-min fairly and none goes faster than one channel's rate ({@link
 * FluidLinks}); a message arrives the route's latency after its last byte left. A receive completes
 * once its message has arrived, plus the step overhead and, for RECV_REDUCE, the time to reduce it.
 */
public final class LinkSimulator {

  private final Topology t;
  private final int[] devices;
  private final CostParams params;
  private final int slots;
  private final int elementBytes;
  private final FluidLinks links;
  private final double[] busyUs;
  private final double[] reducerFreeUs;
  private final Map<Long, List<Message>> messages = new HashMap<>();
  private final Map<Long, Integer> receivedOn = new HashMap<>();
  private final Map<Long, ArrayDeque<Message>> channelQueues = new HashMap<>();
  // Parked channels (rank << 20 | channel) per awaited key; a set, as a channel's window may park
  // several steps on one key and is woken once.
  private final Map<Long, java.util.Set<Long>> waiting = new HashMap<>();
  private final PriorityQueue<double[]> ready =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
  private long sent;
  private double nowUs;

  /** A posted message: known arrival once its last byte has crossed (else -1). */
  private static final class Message {
    final long pairKey;
    final long engineKey;
    final Route route;
    final double bytes;
    double arrivalUs = -1;
    double receivedUs = -1;

    Message(long pairKey, long engineKey, Route route, double bytes) {
      this.pairKey = pairKey;
      this.engineKey = engineKey;
      this.route = route;
      this.bytes = bytes;
    }
  }

  private LinkSimulator(Topology t, int[] devices, CostParams params, int slots, int elementBytes) {
    this.t = t;
    this.devices = devices;
    this.params = params;
    this.slots = slots;
    this.elementBytes = elementBytes;
    double[] cap = new double[2 * t.links().size()];
    for (int h = 0; h < cap.length; h++) {
      cap[h] = t.link(h >> 1).gbps() * 1e3;
    }
    this.links = new FluidLinks(cap, params.channelGbps() * 1e3);
    this.busyUs = new double[cap.length];
    this.reducerFreeUs = new double[devices.length];
  }

  /**
   * Simulates {@code s} with rank r on device {@code devices[r]}.
   *
   * @param slots unreceived messages a pair and channel may hold (the transport's depth)
   * @throws IllegalStateException naming the stuck ranks if the schedule deadlocks
   */
  public static SimResult run(
      Topology t, int[] devices, Schedule s, int elementBytes, CostParams params, int slots) {
    if (devices.length != s.nRanks()) {
      throw new IllegalArgumentException(
          s.nRanks() + "-rank schedule on " + devices.length + " devices (expected: one per rank)");
    }
    if (slots < 1) {
      throw new IllegalArgumentException("slots : " + slots + " (expected: >= 1)");
    }
    return new LinkSimulator(t, devices, params, slots, elementBytes).replay(s);
  }

  private static long key(int from, int to, int channel) {
    return ((long) from << 42) | ((long) to << 21) | channel;
  }

  private static final long SEND_WAIT = 1L << 62;

  private SimResult replay(Schedule s) {
    int n = s.nRanks();
    int[][] cursor = new int[n][];
    double[][] clock = new double[n][];
    boolean[][][] finished = new boolean[n][][];
    for (int r = 0; r < n; r++) {
      int channels = s.rank(r).channels().size();
      cursor[r] = new int[channels];
      clock[r] = new double[channels];
      finished[r] = new boolean[channels][];
      for (int c = 0; c < channels; c++) {
        finished[r][c] = new boolean[s.rank(r).channels().get(c).size()];
        ready.add(new double[] {0, r, c});
      }
    }
    double end = 0;
    while (!ready.isEmpty() || !links.isEmpty()) {
      double nextReady = ready.isEmpty() ? Double.POSITIVE_INFINITY : ready.peek()[0];
      double nextFinish = nowUs + links.nextFinishUs();
      if (nextFinish < nextReady) {
        for (FluidLinks.Flow f : links.advance(nextFinish - nowUs)) {
          nowUs = nextFinish;
          finished((Message) f.owner);
        }
        nowUs = nextFinish;
        continue;
      }
      List<FluidLinks.Flow> alsoDone = links.advance(nextReady - nowUs);
      nowUs = Math.max(nowUs, nextReady);
      for (FluidLinks.Flow f : alsoDone) {
        finished((Message) f.owner);
      }
      double[] top = ready.poll();
      int r = (int) top[1];
      int c = (int) top[2];
      clock[r][c] = Math.max(clock[r][c], nowUs);
      List<Step> steps = s.rank(r).channels().get(c);
      runWindow(r, c, steps, finished[r][c], cursor, clock);
      if (cursor[r][c] < steps.size() && clock[r][c] > nowUs) {
        ready.add(new double[] {clock[r][c], r, c});
      }
      end = Math.max(end, clock[r][c]);
    }
    List<String> stuck = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      RankSchedule rs = s.rank(r);
      for (int c = 0; c < rs.channels().size(); c++) {
        if (cursor[r][c] < rs.channels().get(c).size()) {
          stuck.add(
              "rank "
                  + r
                  + " ch "
                  + c
                  + " at step "
                  + cursor[r][c]
                  + " "
                  + rs.channels().get(c).get(cursor[r][c]));
        }
      }
    }
    if (!stuck.isEmpty()) {
      throw new IllegalStateException(
          "schedule deadlocks in simulation: " + String.join("; ", stuck));
    }
    int busiest = -1;
    double most = 0;
    for (int h = 0; h < busyUs.length; h++) {
      if (busyUs[h] > most) {
        most = busyUs[h];
        busiest = h >> 1;
      }
    }
    return new SimResult(end, sent, busiest, most);
  }

  /**
   * Runs the steps of channel {@code c} of rank {@code r} that can run now, in window order, until
   * none can or the channel is busy past now (a receive it completed).
   */
  private void runWindow(
      int r, int c, List<Step> steps, boolean[] finished, int[][] cursor, double[][] clock) {
    boolean progressed = true;
    while (progressed && clock[r][c] <= nowUs) {
      progressed = false;
      int first = cursor[r][c];
      for (int i = first; i < steps.size() && i < first + StepOrder.WINDOW; i++) {
        if (finished[i] || behindEarlier(steps, finished, first, i)) {
          continue;
        }
        Step step = steps.get(i);
        if (step.kind() == StepKind.SEND ? send(r, c, step) : receive(r, c, step, clock)) {
          finished[i] = true;
          progressed = true;
          if (clock[r][c] > nowUs) {
            break;
          }
        }
      }
      while (cursor[r][c] < steps.size() && finished[cursor[r][c]]) {
        cursor[r][c]++;
      }
    }
  }

  private static boolean behindEarlier(List<Step> steps, boolean[] finished, int first, int i) {
    for (int j = first; j < i; j++) {
      if (!finished[j] && StepOrder.behind(steps.get(j), steps.get(i)) != StepOrder.Wait.NONE) {
        return true;
      }
    }
    return false;
  }

  /** Posts a message; false (and parks the program) while the pair's slots are full. */
  private boolean send(int r, int c, Step step) {
    long k = key(r, step.peer(), c);
    List<Message> queue = messages.computeIfAbsent(k, x -> new ArrayList<>());
    int index = queue.size();
    if (index >= slots) {
      double received = queue.get(index - slots).receivedUs;
      if (received < 0 || received > nowUs) {
        if (received < 0) {
          park(k | SEND_WAIT, r, c);
        } else {
          ready.add(new double[] {received, r, c});
        }
        return false;
      }
    }
    Route route = t.route(devices[r], devices[step.peer()]);
    Message m = new Message(k, key(r, step.lane(), c), route, (double) step.count() * elementBytes);
    queue.add(m);
    sent++;
    ArrayDeque<Message> engine =
        channelQueues.computeIfAbsent(m.engineKey, x -> new ArrayDeque<>());
    engine.add(m);
    if (engine.size() == 1) {
      transmit(m);
    }
    return true;
  }

  /** One lane of one channel of one rank transmits one message at a time. */
  private void transmit(Message m) {
    for (int h : m.route.hops()) {
      busyUs[h] += m.bytes / (t.link(h >> 1).gbps() * 1e3);
    }
    links.start(new FluidLinks.Flow(m.route.hops(), Math.max(m.bytes, 1e-9), m));
  }

  private void finished(Message m) {
    m.arrivalUs = nowUs + m.route.latencyUs();
    ArrayDeque<Message> engine = channelQueues.get(m.engineKey);
    engine.poll();
    if (!engine.isEmpty()) {
      transmit(engine.peek());
    }
    wake(m.pairKey, m.arrivalUs);
  }

  /** Completes a receive whose message has arrived by now; false (and parks) otherwise. */
  private boolean receive(int r, int c, Step step, double[][] clock) {
    long k = key(step.peer(), r, c);
    int index = receivedOn.getOrDefault(k, 0);
    List<Message> queue = messages.get(k);
    if (queue == null || queue.size() <= index || queue.get(index).arrivalUs < 0) {
      park(k, r, c);
      return false;
    }
    Message m = queue.get(index);
    if (m.arrivalUs > nowUs) {
      // Still in flight (its route's latency): other steps of the window may run meanwhile.
      ready.add(new double[] {m.arrivalUs, r, c});
      return false;
    }
    double done = clock[r][c] + params.stepOverheadUs();
    if (step.kind() == StepKind.RECV_REDUCE) {
      // The rank's reduce rate is shared by its channels: their reductions take turns.
      done = Math.max(done, reducerFreeUs[r]) + m.bytes / (params.reduceGbps() * 1e3);
      reducerFreeUs[r] = done;
    }
    m.receivedUs = done;
    receivedOn.put(k, index + 1);
    clock[r][c] = done;
    wake(k | SEND_WAIT, done);
    return true;
  }

  private void park(long k, int r, int c) {
    waiting.computeIfAbsent(k, x -> new java.util.LinkedHashSet<>()).add(((long) r << 20) | c);
  }

  private void wake(long k, double atUs) {
    java.util.Set<Long> w = waiting.remove(k);
    if (w != null) {
      for (long rc : w) {
        ready.add(new double[] {Math.max(atUs, nowUs), rc >>> 20, rc & ((1 << 20) - 1)});
      }
    }
  }
}
